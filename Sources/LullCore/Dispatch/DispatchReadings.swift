import Foundation

/// What a decision may have to read from the system first. A seam, so the dispatcher's state
/// machine reads nothing itself and tests script what it would read.
public protocol DispatchReadings {
    /// Pressure read now; asked only when a start hangs on it and the last reading is stale.
    func pressure() -> PressureState
    /// The local time zone's offset at `wall` and when it next changes, for class time windows.
    func localTime(at wall: Date) -> (LocalTime, knownUntil: Date)
}
