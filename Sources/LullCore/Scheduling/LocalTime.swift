import Foundation

/// The local time rule the scheduler uses for daily windows and per-day quotas, given by the
/// caller so the core never looks up a time zone: the UTC offset in force, plus the offset
/// changes (daylight saving) the daemon knows about ahead. With the changes listed, the next
/// window opening computed across a DST switch is exact.
public struct LocalTime: Sendable, Equatable {
    public struct OffsetChange: Sendable, Equatable {
        public var at: Date
        /// Seconds east of UTC from `at` on.
        public var utcOffset: Int

        public init(at: Date, utcOffset: Int) {
            self.at = at
            self.utcOffset = utcOffset
        }
    }

    /// Seconds east of UTC before the first change.
    public var utcOffset: Int
    /// Later offsets, sorted by time.
    public var changes: [OffsetChange]

    public init(utcOffset: Int, changes: [OffsetChange] = []) {
        self.utcOffset = utcOffset
        self.changes = changes.sorted { $0.at < $1.at }
    }

    public static let utc = LocalTime(utcOffset: 0)

    /// How far ahead `observing` looks for the next change; a zone with none in that time is
    /// looked at again once it has passed.
    public static let observationHorizon: TimeInterval = 400 * 86_400

    /// The offset `offset` gives at `now` and its next change, for a zone known only through
    /// such a function (the C library's `localtime_r`). It probes a day at a time, then narrows
    /// to the second, so two changes less than a day apart would read as one: no zone has them.
    public static func observing(from now: Date, offset: (Date) -> Int) -> LocalTime {
        let start = now.timeIntervalSince1970.rounded(.down)
        let initial = offset(Date(timeIntervalSince1970: start))
        var before = start
        while before < start + observationHorizon {
            let probe = before + 86_400
            if offset(Date(timeIntervalSince1970: probe)) == initial {
                before = probe
                continue
            }
            // The change lies in (before, probe]: the first second with another offset.
            var after = probe
            while after - before > 1 {
                let middle = (before + (after - before) / 2).rounded(.down)
                if offset(Date(timeIntervalSince1970: middle)) == initial { before = middle } else { after = middle }
            }
            let at = Date(timeIntervalSince1970: after)
            return LocalTime(utcOffset: initial, changes: [OffsetChange(at: at, utcOffset: offset(at))])
        }
        return LocalTime(utcOffset: initial)
    }

    public func utcOffset(at date: Date) -> Int { offset(at: date.timeIntervalSinceReferenceDate) }

    /// Seconds since local midnight, 0..<86400.
    public func secondOfDay(at date: Date) -> Double { secondOfDay(date.timeIntervalSinceReferenceDate) }

    /// Local calendar day number (days since 2001-01-01 local), for per-day budgets.
    public func day(at date: Date) -> Int { day(date.timeIntervalSinceReferenceDate) }

    /// The first instant at or after `date` at which `window` is open.
    public func nextOpening(of window: DailyWindow, atOrAfter date: Date) -> Date {
        Date(timeIntervalSinceReferenceDate: nextOpening(of: window, atOrAfter: date.timeIntervalSinceReferenceDate))
    }

    /// The next local midnight strictly after `date`.
    public func nextMidnight(after date: Date) -> Date {
        Date(timeIntervalSinceReferenceDate: nextMidnight(after: date.timeIntervalSinceReferenceDate))
    }

    // MARK: - Seconds since the reference date (2001-01-01, a UTC midnight), used inside the core

    func offset(at t: Double) -> Int {
        var current = utcOffset
        for change in changes {
            if change.at.timeIntervalSinceReferenceDate <= t { current = change.utcOffset } else { break }
        }
        return current
    }

    func secondOfDay(_ t: Double) -> Double {
        let local = t + Double(offset(at: t))
        let r = local.truncatingRemainder(dividingBy: 86_400)
        return r < 0 ? r + 86_400 : r
    }

    func day(_ t: Double) -> Int {
        Int(((t + Double(offset(at: t))) / 86_400).rounded(.down))
    }

    /// The first change strictly after `t` and at or before `limit` that alters the offset.
    private func change(after t: Double, through limit: Double) -> Double? {
        var current = offset(at: t)
        for change in changes where change.at.timeIntervalSinceReferenceDate > t {
            let at = change.at.timeIntervalSinceReferenceDate
            if at > limit { return nil }
            if change.utcOffset != current { return at }
            current = change.utcOffset
        }
        return nil
    }

    func nextOpening(of window: DailyWindow, atOrAfter start: Double) -> Double {
        var t = start
        for _ in 0...(changes.count + 1) {
            let wait = window.secondsUntilOpen(secondOfDay: secondOfDay(t))
            if wait == 0 { return t }
            let candidate = t + wait
            guard let switchAt = change(after: t, through: candidate) else { return candidate }
            t = switchAt
        }
        return t
    }

    func nextMidnight(after start: Double) -> Double {
        var t = start
        for _ in 0...(changes.count + 1) {
            let candidate = t + (86_400 - secondOfDay(t))
            guard let switchAt = change(after: t, through: candidate) else { return candidate }
            if day(switchAt) != day(start) { return switchAt }
            t = switchAt
        }
        return t + 86_400
    }
}
