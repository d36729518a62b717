import CSystemd

#if canImport(Glibc)
import Glibc
#endif

/// Which service manager this process belongs to: what hooks and run jobs' units go to when
/// their setting is `auto`.
enum OwnServiceManager {
    /// This process belongs to a unit of a user's service manager (`systemctl --user`).
    static var isUsers: Bool {
        var unit: UnsafeMutablePointer<CChar>? = nil
        let r = sd_pid_get_user_unit(0, &unit)
        free(unit)
        return r >= 0
    }
}
