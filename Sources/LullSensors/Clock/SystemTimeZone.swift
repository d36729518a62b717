import Foundation
import LullCore

#if canImport(Glibc)
import Glibc
#endif

/// The local time zone as the C library reads it (`TZ`, else `/etc/localtime`), the zone `date`
/// and cron use, for class windows and daily budgets. Foundation's `TimeZone.current` would do
/// the same job by loading ICU's zone data, megabytes of an idle daemon's resident memory
/// (docs/performance.md), for one offset and its next change.
public enum SystemTimeZone {
    /// Reads the zone again (a reload or a passed change picks up a moved machine) and returns
    /// its offset at `now` with the next change.
    public static func localTime(at now: Date) -> LocalTime {
        tzset()
        return LocalTime.observing(from: now, offset: utcOffset(at:))
    }

    /// Seconds east of UTC at `date`.
    public static func utcOffset(at date: Date) -> Int {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return 0 }
        return Int(parts.tm_gmtoff)
    }
}
