import LullTestSupport

extension CommandResult {
    /// Throws a `BenchError` naming `what` and its stderr when the command failed.
    func requireSuccess(_ what: String) throws {
        guard status == 0 else { throw BenchError("\(what) failed (\(status)): \(stderr)") }
    }
}
