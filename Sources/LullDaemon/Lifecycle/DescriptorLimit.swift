#if canImport(Glibc)
import Glibc
#endif

/// The process's open-file limit (`RLIMIT_NOFILE`). The soft limit is often 1024 while the hard
/// one is far higher; the daemon uses poll-based I/O only (no `select`), so it takes the hard
/// limit, leaving more room under the connection caps that are derived from it. The commands it
/// starts get the soft limit it was started with back: a program that uses `select`, or closes
/// every descriptor up to the limit, expects the usual one.
struct DescriptorLimit: Sendable, Equatable {
    /// The soft limit in force for lulld.
    var inForce: Int
    /// The soft limit lulld was started with, where it raised it; nil where it did not.
    var raisedFrom: UInt64?

    /// Raises the soft limit to the hard one where it is lower.
    static func raiseToHard() -> DescriptorLimit {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return DescriptorLimit(inForce: 1024, raisedFrom: nil) }
        guard limit.rlim_cur < limit.rlim_max else {
            return DescriptorLimit(inForce: Int(clamping: limit.rlim_cur), raisedFrom: nil)
        }
        var raised = limit
        raised.rlim_cur = limit.rlim_max
        guard setrlimit(resource, &raised) == 0 else {
            return DescriptorLimit(inForce: Int(clamping: limit.rlim_cur), raisedFrom: nil)
        }
        return DescriptorLimit(inForce: Int(clamping: raised.rlim_cur), raisedFrom: UInt64(limit.rlim_cur))
    }
}
