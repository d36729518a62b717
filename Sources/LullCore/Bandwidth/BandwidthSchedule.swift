import Foundation

/// A bandwidth limit as an admin configures it, for the daemon (`[limits]`) or a class
/// (`[classes.NAME]`): a rate that holds all day (`max_bytes_per_second`), and rates of their own
/// inside daily windows (`[[limits.bandwidth]]`, `[[classes.NAME.bandwidth]]`). Inside a window
/// its rate holds; where windows overlap the first one listed wins; outside every window the
/// all-day rate holds, or none.
public struct BandwidthSchedule: Sendable, Equatable {
    /// A rate that holds inside a daily window.
    public struct WindowRate: Sendable, Equatable {
        public var window: DailyWindow
        public var bytesPerSecond: Int64
        public var origin: ConfigOrigin?

        public init(window: DailyWindow, bytesPerSecond: Int64, origin: ConfigOrigin? = nil) {
            self.window = window
            self.bytesPerSecond = bytesPerSecond
            self.origin = origin
        }
    }

    /// The rates a limit may have, bytes per second: from 1 KiB/s (slower stalls a transfer
    /// for longer than servers wait) to 1 TiB/s. Jobs, classes and the daemon share the range.
    public static let rateRange: ClosedRange<Int64> = 1024...(1 << 40)

    /// The rate outside every window; nil: no limit there.
    public var bytesPerSecond: Int64?
    public var origin: ConfigOrigin?
    public var windows: [WindowRate]

    public init(bytesPerSecond: Int64? = nil, origin: ConfigOrigin? = nil, windows: [WindowRate] = []) {
        self.bytesPerSecond = bytesPerSecond
        self.origin = origin
        self.windows = windows
    }

    /// No limit at any time.
    public static let none = BandwidthSchedule()

    public var isNone: Bool { bytesPerSecond == nil && windows.isEmpty }

    /// The rate in force at `date`; nil when nothing limits it then.
    public func rate(at date: Date, localTime: LocalTime) -> Int64? {
        guard !windows.isEmpty else { return bytesPerSecond }
        let second = localTime.secondOfDay(at: date)
        return windows.first { $0.window.contains(secondOfDay: second) }?.bytesPerSecond ?? bytesPerSecond
    }

    /// The next time after `date` at which a window opens or closes, when the rate may change;
    /// nil when it never does.
    public func nextChange(after date: Date, localTime: LocalTime) -> Date? {
        windows.filter { !$0.window.isWholeDay }.map { rate in
            let window = rate.window
            let second = localTime.secondOfDay(at: date)
            // An open window's closing is its complement's opening.
            let next =
                window.contains(secondOfDay: second)
                ? DailyWindow(startMinute: window.endMinute, endMinute: window.startMinute) : window
            return localTime.nextOpening(of: next, atOrAfter: date)
        }.min()
    }
}
