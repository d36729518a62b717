#if canImport(Glibc)
import Glibc
#endif

/// User names and uids as the local passwd database (NSS) knows them, for `list`'s OWNER
/// column and `--owner`. A uid without an entry (a deleted user) shows as its number.
enum UserNames {
    /// `alice` for 1000, or `1000` when no user has that uid.
    static func name(of uid: UInt32) -> String {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &found) == 0, let found, let name = found.pointee.pw_name
        else {
            return String(uid)
        }
        return String(cString: name)
    }

    /// The uid of a user name or of a number as given; nil when neither.
    static func uid(of nameOrUID: String) -> UInt32? {
        if let uid = UInt32(nameOrUID) { return uid }
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwnam_r(nameOrUID, &entry, &buffer, buffer.count, &found) == 0, let found else { return nil }
        return found.pointee.pw_uid
    }
}
