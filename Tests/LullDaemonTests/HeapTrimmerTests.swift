import LullCore
import LullTestSupport
import NIOPosix
import Synchronization
import Testing

@testable import LullDaemon

/// A run of large requests is followed by one trim once it is over, not one per request.
@Suite struct HeapTrimmerTests {
    @Test func aBurstIsTrimmedOnceWhenItIsOver() async throws {
        let time = ManualTime()
        let (trims, trimmed) = AsyncStream.makeStream(of: Void.self)
        let trimmer = HeapTrimmer { trimmed.yield() }
        var iterator = trims.makeAsyncIterator()
        for _ in 0..<3 {
            trimmer.trimWhenQuiet(for: .seconds(1), sleeper: time)
            try await waitUntil { time.sleeping == 1 }
            time.advance(by: .milliseconds(600))
        }
        // 1.8 s since the first request, 0.6 s since the last: nothing yet.
        #expect(time.sleeping == 1)
        time.advance(by: .milliseconds(400))
        await iterator.next()
        #expect(time.sleeping == 0)
        trimmed.finish()
        #expect(await iterator.next() == nil, "one trim for the burst")
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TimedOut(description: "the trimmer's wait") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
