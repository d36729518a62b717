import Foundation
import LullCore
import LullSensors

/// What the dispatcher's decisions read from the system: pressure from the gauge, the local
/// time zone from the C library.
struct SystemReadings: DispatchReadings {
    let gauge: any PressureGauge

    func pressure() -> PressureState { gauge.read() }

    func localTime(at wall: Date) -> (LocalTime, knownUntil: Date) { Self.localTime(at: wall) }

    /// The local time zone's offset now and at its next change, for class time windows.
    static func localTime(at now: Date) -> (LocalTime, knownUntil: Date) {
        let localTime = SystemTimeZone.localTime(at: now)
        return (localTime, localTime.changes.last?.at ?? now.addingTimeInterval(LocalTime.observationHorizon))
    }
}
