import Foundation

/// How hard the robustness tests push: a quick form that CI runs on every `make test`, and a long
/// form behind `LULL_LONG_TESTS=1` (more kills, longer load, the 30-minute soak).
public enum TestScale {
    public static let environmentKey = "LULL_LONG_TESTS"

    public static var isLong: Bool { ProcessInfo.processInfo.environment[environmentKey] == "1" }

    /// `quick` in the default run, `long` when `LULL_LONG_TESTS=1`.
    public static func pick<T>(quick: T, long: T) -> T { isLong ? long : quick }

    /// A seed for randomised tests: `LULL_TEST_SEED` when set (to replay a failure), else a fresh one.
    public static func seed() -> UInt64 {
        if let text = ProcessInfo.processInfo.environment["LULL_TEST_SEED"], let seed = UInt64(text) { return seed }
        return UInt64.random(in: 1...UInt64.max)
    }
}

/// A small deterministic generator (xorshift64*), so a randomised run can be replayed from its seed.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }

    public mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}
