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

    /// The daemon's code waits on its event loops (`Sleeper`), never with `Task.sleep`: one use
    /// arms libdispatch's 1 Hz monitor for the rest of the process's life. The test above catches
    /// it on the paths it runs; this catches it on the others (the systemd host, reconnects).
    @Test func noDaemonCodeSleepsWithTaskSleep() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        var offenders: [String] = []
        for module in ["LullDaemon", "LullTransfer", "LullStore", "LullSensors", "LullCore"] {
            let root = sources.appendingPathComponent(module)
            let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
            while let file = files?.nextObject() as? URL {
                guard file.pathExtension == "swift", file.lastPathComponent != "Sleeper.swift" else { continue }
                let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
                for (number, line) in lines.enumerated()
                where line.contains("Task.sleep(") && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                    offenders.append("\(module)/\(file.lastPathComponent):\(number + 1)")
                }
            }
        }
        #expect(offenders.isEmpty, "Task.sleep in daemon code: \(offenders)")
    }
}
