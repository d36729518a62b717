import LullCore

/// A sleeper that runs the test's script instead of (or around) waiting.
public struct ScriptedSleeper: Sleeper {
    public let script: @Sendable (Duration) async throws -> Void

    public init(_ script: @escaping @Sendable (Duration) async throws -> Void) { self.script = script }

    public func sleep(for duration: Duration) async throws {
        try await script(duration)
    }
}
