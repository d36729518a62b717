import Dispatch

/// Keeps dispatch sources alive for as long as their stream, and cancels them with it.
final class SourceList: @unchecked Sendable {
    // Written once in init, read once in cancel (on stream termination).
    private let sources: [any DispatchSourceProtocol]
    init(_ sources: [any DispatchSourceProtocol]) { self.sources = sources }
    func cancel() { for source in sources { source.cancel() } }
}
