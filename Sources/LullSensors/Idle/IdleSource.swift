import LullCore

/// Where the daemon learns whether someone uses the machine. Event-driven; yields only real
/// changes.
public protocol IdleSource: AnyObject, Sendable {
    /// The latest reading (`IdleState.unknown` until `start()` has read once).
    var current: IdleState { get }
    /// Readings after this call, one per change.
    func changes() -> AsyncStream<IdleState>
    /// The current reading first, then every change.
    func values() -> AsyncStream<IdleState>
    /// Reads the initial state and begins listening. After it returns, `current` is real.
    func start() async throws
    /// Stops listening and ends every stream.
    func stop() async
}
