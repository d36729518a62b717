/// A daily local-time window, e.g. 01:00–05:00. Minutes since local midnight; `end < start`
/// wraps past midnight (22:00–06:00); `end == start` is the whole day.
public struct DailyWindow: Sendable, Hashable, CustomStringConvertible {
    public static let minutesPerDay = 1440

    /// First minute inside the window, 0..<1440.
    public var startMinute: Int
    /// First minute after the window, 0..<1440.
    public var endMinute: Int

    public init(startMinute: Int, endMinute: Int) {
        precondition((0..<Self.minutesPerDay).contains(startMinute), "startMinute out of 0..<1440")
        precondition((0..<Self.minutesPerDay).contains(endMinute), "endMinute out of 0..<1440")
        self.startMinute = startMinute
        self.endMinute = endMinute
    }

    /// `DailyWindow(fromHour: 1, toHour: 5)` is 01:00–05:00.
    public init(fromHour: Int, minute startMinute: Int = 0, toHour: Int, minute endMinute: Int = 0) {
        self.init(startMinute: fromHour * 60 + startMinute, endMinute: toHour * 60 + endMinute)
    }

    public var wrapsMidnight: Bool { endMinute < startMinute }
    public var isWholeDay: Bool { endMinute == startMinute }

    /// Whether a local time of day (seconds since local midnight, 0..<86400) is inside.
    public func contains(secondOfDay: Double) -> Bool {
        if isWholeDay { return true }
        let start = Double(startMinute * 60)
        let end = Double(endMinute * 60)
        return wrapsMidnight ? (secondOfDay >= start || secondOfDay < end) : (secondOfDay >= start && secondOfDay < end)
    }

    /// Seconds from a local time of day until the window next opens; 0 when it is open.
    public func secondsUntilOpen(secondOfDay: Double) -> Double {
        if contains(secondOfDay: secondOfDay) { return 0 }
        let start = Double(startMinute * 60)
        return secondOfDay < start ? start - secondOfDay : 86_400 - secondOfDay + start
    }

    /// "01:00–05:00".
    public var description: String { "\(Self.clock(startMinute))–\(Self.clock(endMinute))" }

    static func clock(_ minute: Int) -> String {
        let h = minute / 60
        let m = minute % 60
        return (h < 10 ? "0" : "") + String(h) + ":" + (m < 10 ? "0" : "") + String(m)
    }
}
