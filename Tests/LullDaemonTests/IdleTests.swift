import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// An idle daemon must not wake. The trap this guards against: on Linux `Task.sleep` runs on
/// libdispatch, whose first worker thread arms a 1 Hz work-queue monitor that never stops, so a
/// single sleep anywhere (a transfer watchdog, a progress flush, the status line) left the
/// daemon waking every second for the rest of its life.
@Suite struct IdleTests {
    @Test func afterATransferAndWithAHeldJobTheDaemonSleeps() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        let content = TestHTTPServer.bytes(count: 4 << 20, seed: 7)
        server.serve("/f", content)
        try await withDaemon { daemon, client in
            // Work that exercises every timer: a transfer (watchdog, progress flushes), the
            // service status line, the dispatcher's timer for a job held until later.
            let destination = daemon.directory.appendingPathComponent("f.bin").path
            let fetched = try await client.submit(
                JobSubmission(kind: .fetch, url: server.url("/f"), destination: destination)
            )
            #expect(try await awaitJob(fetched.id, in: [.succeeded, .failed], client: client).state == .succeeded)
            let held = try await client.submit(
                JobSubmission(
                    kind: .push,
                    url: server.url("/p"),
                    body: "later",
                    notBefore: Date().addingTimeInterval(3600)
                )
            )
            #expect(try await client.explain(held.id).reasons.map(\.code) == ["not_before"])
            // The status line goes out at most 1 s after the last change; let it.
            try await Task.sleep(for: .milliseconds(1500))

            let switches = ThreadCounters.voluntarySwitches(pid: daemon.pid)
            try await ThreadCounters.watch([switches], for: .seconds(5))
            print("lulld voluntary context switches, all threads, over 5 s idle: \(switches.total)")
            #expect(switches.total <= 2, "an idle daemon woke \(switches.total) times in 5 s (a periodic timer?)")
            #expect(try await client.job(held.id).state == .queued)
        }
    }
}
