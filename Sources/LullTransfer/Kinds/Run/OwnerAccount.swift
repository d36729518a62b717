#if canImport(Glibc)
import Glibc
#endif

/// A job owner's account as the password and group databases give it: what a run job's process
/// runs as, and the `HOME` and `USER` of its environment.
public struct OwnerAccount: Sendable, Equatable {
    public var uid: UInt32
    public var gid: UInt32
    public var name: String
    public var home: String
    /// Supplementary groups, the primary group included.
    public var groups: [UInt32]

    /// The entry of `uid`; an uid without one gets its number as name, `/` as home and its own
    /// number as its only group, so a job of a container's anonymous uid still runs.
    public static func lookUp(_ uid: UInt32) -> OwnerAccount {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16 << 10)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &found) == 0, found != nil else {
            return OwnerAccount(uid: uid, gid: uid, name: String(uid), home: "/", groups: [uid])
        }
        let name = String(cString: entry.pw_name)
        let gid = entry.pw_gid
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(entry.pw_name, gid, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            if getgrouplist(entry.pw_name, gid, &groups, &count) < 0 { count = 0 }
        }
        let list = count > 0 ? Array(groups.prefix(Int(count))) : [gid]
        return OwnerAccount(uid: uid, gid: gid, name: name, home: String(cString: entry.pw_dir), groups: list)
    }
}
