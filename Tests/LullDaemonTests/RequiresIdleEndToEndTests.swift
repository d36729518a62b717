import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

private let login1 = "org.freedesktop.login1"

private struct MockLogindFailed: Error, CustomStringConvertible {
    var description: String
}

/// `requires_idle` against the real daemon over its socket, with python-dbusmock's logind
/// template on a private bus standing in for systemd-logind.
@Suite(.enabled(if: MockSystemBus.isAvailable, "needs dbus-daemon and python3-dbusmock (make test installs them)"))
struct RequiresIdleEndToEndTests {
    static func config(_ bus: MockSystemBus) -> String {
        "[sensors]\nbus = \"\(bus.address)\"\nidle_after = 2\n"
    }

    /// Sets logind's manager properties in one `PropertiesChanged`, as logind sends them.
    static func setIdle(_ bus: MockSystemBus, _ idle: Bool, since: Date = Date()) throws {
        let micros = UInt64(since.timeIntervalSince1970 * 1_000_000)
        let result = try bus.python(
            """
            obj = bus.get_object('\(login1)', '/org/freedesktop/login1')
            obj.UpdateProperties('org.freedesktop.login1.Manager',
                                 {'IdleHint': \(idle ? "True" : "False"), 'IdleSinceHint': dbus.UInt64(\(micros))},
                                 dbus_interface='org.freedesktop.DBus.Mock')
            """
        )
        guard result.status == 0 else { throw MockLogindFailed(description: "setting IdleHint: \(result.stderr)") }
    }

    @Test func aRequiresIdleFetchIsHeldWhileTheUserIsActiveAndStartsOnceIdleForIdleAfter() async throws {
        let bus = try MockSystemBus()
        defer { bus.stop() }
        try bus.startTemplate("logind", busName: login1)
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        let content = TestHTTPServer.bytes(count: 64 << 10, seed: 6)
        server.serve("/idle", content)

        try await withDaemon(config: Self.config(bus)) { daemon, client in
            let world = try #require(try await client.status().world?.idle)
            #expect(world.state == "active" && world.source == "logind IdleHint false")

            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/idle"),
                    destination: daemon.directory.appendingPathComponent("idle").path,
                    requiresIdle: true
                )
            )
            #expect(job.requiresIdle == true)
            #expect(job.waitingFor?.map(\.code) == ["not_idle"])
            #expect(
                job.waitingFor?.first?.text
                    == "user active (logind IdleHint false), job's requires_idle (job constraint)"
            )

            // The user leaves. logind's idle time counts from IdleSinceHint, so the job is due
            // idle_after (2 s) after it and not at the signal.
            let cursor = try await client.events(after: 0).lastSeq
            let startWatch = Task {
                try await awaitEvent(client: client, after: cursor, timeout: .seconds(20), "job \(job.id) started") {
                    $0.jobId == job.id && $0.type == .started
                }
                return Date()
            }
            let left = Date()
            try Self.setIdle(bus, true, since: left)
            let explained = try await withTimeout(.seconds(5), "the daemon to see logind idle") {
                while true {
                    let explanation = try await client.explain(job.id)
                    if explanation.world.idle?.state == "idle" { return explanation }
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            if explained.state == .queued {
                #expect(explained.reasons.map(\.code) == ["not_idle"])
                #expect(explained.reasons.first?.text.contains("< idle_after 2 s") == true, "\(explained.reasons)")
                #expect(explained.nextCheck != nil, "a timer for idle_after, no other event needed")
            }

            // Event times on the wire are whole seconds: the start is timed as it is seen.
            let after = try await startWatch.value.timeIntervalSince(left)
            print("requires_idle: started \(after) s after logind's IdleSinceHint (idle_after 2 s)")
            #expect(after >= 2, "not before idle_after")
            #expect(after < 3.5, "at idle_after, by the daemon's own timer")
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(20))
            #expect(done.state == .succeeded)
            #expect(try Data(contentsOf: URL(fileURLWithPath: done.destination ?? "")) == Data(content))
        }
    }

    @Test func withoutLogindIdleIsUnknownAndAJobThatRequiresItWaitsSayingSo() async throws {
        let bus = try MockSystemBus()
        defer { bus.stop() }
        try await withDaemon(config: Self.config(bus)) { daemon, client in
            let idle = try #require(try await client.status().world?.idle)
            #expect(idle.state == "unknown" && idle.source == "logind not found")
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: "http://127.0.0.1:9/never",
                    destination: daemon.directory.appendingPathComponent("never").path,
                    requiresIdle: true
                )
            )
            #expect(job.waitingFor?.map(\.code) == ["not_idle"])
            #expect(job.waitingFor?.first?.text.hasPrefix("idle unknown: logind not found") == true)

            let status = try CommandRunner.run(
                DaemonProcess.binary("lullctl"),
                ["status", "--socket", daemon.socketPath]
            )
            #expect(status.stdout.contains("idle unknown (logind not found)"), "\(status.stdout)")
            let shown = try CommandRunner.run(
                DaemonProcess.binary("lullctl"),
                ["show", String(job.id), "--socket", daemon.socketPath]
            )
            #expect(shown.stdout.contains("requires idle"), "\(shown.stdout)")

            // What an idle machine would do, and what a busy one would.
            let idleWorld = try await client.simulate(SimulateRequest(idle: true))
            #expect(idleWorld.wouldStart == [job.id])
            #expect(idleWorld.world.idle?.state == "idle" && idleWorld.world.idle?.source == "simulated")
            let busy = try CommandRunner.run(
                DaemonProcess.binary("lullctl"),
                ["simulate", "--user-active", "--socket", daemon.socketPath]
            )
            #expect(busy.stdout.contains("job \(job.id): user active (simulated)"), "\(busy.stdout)")
        }
    }

    /// Needs the dispatcher to stop running jobs whose conditions lapse (issue 24, part 1).
    @Test func aRunningRequiresIdleFetchIsStoppedWhenTheUserReturns() async throws {
        let bus = try MockSystemBus()
        defer { bus.stop() }
        try bus.startTemplate("logind", busName: login1)
        try Self.setIdle(bus, true, since: Date(timeIntervalSinceNow: -3600))
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        let body = TestHTTPServer.bytes(count: 4 << 20, seed: 25)
        server.route(
            "/big",
            .init(body: body, etag: "\"v1\"", faults: [.drip(bytes: 64 << 10, every: .milliseconds(50))])
        )

        // finish_within = 0: this small file would otherwise count as nearly done and be let finish.
        let config = Self.config(bus) + "[classes.utility]\nfinish_within = 0\n"
        try await withDaemon(config: config) { daemon, client in
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/big"),
                    destination: daemon.directory.appendingPathComponent("big").path,
                    jobClass: "utility",
                    requiresIdle: true
                )
            )
            try await withTimeout(.seconds(20), "job \(job.id) to be receiving") {
                while true {
                    let view = try await client.job(job.id)
                    if view.state == .running, (view.progress?.bytesDone ?? 0) >= 256 << 10 { return }
                    try await Task.sleep(for: .milliseconds(50))
                }
            }

            let cursor = try await client.events(after: 0).lastSeq
            let stoppedWatch = Task {
                try await awaitEvent(client: client, after: cursor, timeout: .seconds(10), "job \(job.id) stopped") {
                    $0.jobId == job.id && $0.type == .stopped
                }
            }
            let back = ContinuousClock.now
            try Self.setIdle(bus, false)
            let stopped = try await stoppedWatch.value
            #expect(ContinuousClock.now - back < .seconds(1), "stopped within 1 s of the user coming back")
            #expect(stopped.reason == "not_idle")
            let held = try await client.job(job.id)
            #expect(held.state == .queued)
            #expect(held.retryAt == nil, "a stop sets no backoff")
            try await awaitWaiting(job.id, client: client) { $0 == ["not_idle"] }

            // Away again: it resumes from its checkpoint and finishes byte for byte.
            try Self.setIdle(bus, true)
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(60))
            #expect(done.state == .succeeded)
            #expect(done.attempts == 1)
            let range = server.requests.last?.header("range") ?? ""
            #expect(range.hasPrefix("bytes=") && range != "bytes=0-", "resumed with \(range)")
            let file = try Data(contentsOf: URL(fileURLWithPath: done.destination ?? ""))
            #expect(TestHTTPServer.sha256([UInt8](file)) == TestHTTPServer.sha256(body), "byte-exact")
        }
    }
}
