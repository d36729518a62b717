import CSystemd

#if canImport(Glibc)
import Glibc
#endif

/// Which service manager this process belongs to: what hooks and run jobs' units go to when
/// their setting is `auto`.
enum OwnServiceManager {
    /// This process belongs to a unit of a user's service manager (`systemctl --user`).
    static var isUsers: Bool { userUnit != nil }

    /// The unit of a user's service manager this process belongs to: `lulld.service` when it
    /// runs as the user's service, a scope such as `app-…-1234.scope` when it was started from a
    /// terminal of a desktop session; nil outside any.
    static var userUnit: String? {
        var unit: UnsafeMutablePointer<CChar>? = nil
        defer { free(unit) }
        guard sd_pid_get_user_unit(0, &unit) >= 0, let unit else { return nil }
        return String(cString: unit)
    }
}
