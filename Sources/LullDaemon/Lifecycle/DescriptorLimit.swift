#if canImport(Glibc)
import Glibc
#endif

/// The process's open-file limit (`RLIMIT_NOFILE`). The soft limit is often 1024 while the hard
/// one is far higher; the daemon uses poll-based I/O only (no `select`), so it takes the hard
/// limit, leaving more room under the connection caps that are derived from it.
enum DescriptorLimit {
    /// Raises the soft limit to the hard one where it is lower; returns the soft limit in force.
    @discardableResult
    static func raiseToHard() -> Int {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
