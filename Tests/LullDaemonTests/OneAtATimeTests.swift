import Synchronization
import Testing

@testable import LullDaemon

/// Reloads run one at a time: the second starts only once the first has finished, even though
/// the first waits part-way (where an actor alone would let the second in).
@Suite struct OneAtATimeTests {
    @Test func theSecondPieceStartsOnlyAfterTheFirstEnds() async throws {
        let turns = OneAtATime<Int>()
        let log = Log()
        let (gate, opener) = AsyncStream.makeStream(of: Void.self)
        let (firstStarted, started) = AsyncStream.makeStream(of: Void.self)
        let first = Task {
            await turns.run { @Sendable in
                log.append("first starts")
                started.yield()
                for await _ in gate { break }
                log.append("first ends")
                return 1
            }
        }
        for await _ in firstStarted { break }
        let second = Task {
            await turns.run { @Sendable in
                log.append("second starts")
                return 2
            }
        }
        // Give the second every chance to start early: it must not.
        for _ in 0..<100 { await Task.yield() }
        #expect(log.lines == ["first starts"])
        opener.yield()
        #expect(await first.value == 1)
        #expect(await second.value == 2)
        #expect(log.lines == ["first starts", "first ends", "second starts"])
    }
}

private final class Log: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ line: String) { entries.withLock { $0.append(line) } }
    var lines: [String] { entries.withLock { $0 } }
}
