import LullCore

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
    /// number as its only group, so a job of a container's anonymous uid still runs. A database
    /// that answers an error (sssd or LDAP down) is not taken for "no entry", whose stand-in
    /// group may be another account's: the attempt fails `account_unavailable`, to be retried.
    public static func lookUp(
        _ uid: UInt32,
        database: (UInt32, inout passwd, inout [CChar], inout UnsafeMutablePointer<passwd>?) -> Int32 = {
            getpwuid_r($0, &$1, &$2, $2.count, &$3)
        }
    ) throws(JobFailure) -> OwnerAccount {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16 << 10)
        var failed = database(uid, &entry, &buffer, &found)
        while failed == ERANGE, buffer.count < 1 << 20 {
            buffer = [CChar](repeating: 0, count: buffer.count * 4)
            failed = database(uid, &entry, &buffer, &found)
        }
        guard failed == 0 else {
            throw JobFailure(
                code: "account_unavailable",
                message: "the account of uid \(uid) could not be looked up (\(String(cString: strerror(failed)))); "
                    + "the attempt is tried again later",
                retryable: true
            )
        }
        guard found != nil else {
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
