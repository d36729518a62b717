import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

private let login1 = "org.freedesktop.login1"

/// Suspend: lulld holds a logind delay inhibitor; on PrepareForSleep(true) it checkpoints its
/// running transfers back into the queue and releases the inhibitor, on PrepareForSleep(false)
/// it takes the inhibitor again and the transfers resume where they stopped. logind is
/// python-dbusmock's template on a private bus.
@Suite(.enabled(if: MockSystemBus.isAvailable, "needs dbus-daemon and python3-dbusmock (make test installs them)"))
struct SleepTests {
    @Test func transfersAreCheckpointedBeforeSleepAndResumeAfterIt() async throws {
        let bus = try MockSystemBus()
        defer { bus.stop() }
        try bus.startTemplate("logind", busName: login1)
        try await withStalledFetch(bus) { _, client, fetch in
            try await awaitInhibitor(bus)
            let (job, destination, content, server) = (fetch.job, fetch.destination, fetch.content, fetch.server)
            let requeued = try await checkpointForSleep(bus, job, client)
            #expect(requeued.message?.contains("sleep") == true, "\(requeued.message ?? "")")
            try await waitUntil("the inhibitor to be released", timeout: .seconds(15)) {
                try !inhibitors(bus).contains("lulld")
            }
            #expect(try await client.job(job.id).state == .queued, "nothing starts while the machine sleeps")

            try prepareForSleep(bus, false)
            try await waitUntil("the inhibitor to be taken again", timeout: .seconds(15)) {
                try inhibitors(bus).contains("sleep lulld delay")
            }
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            let range = server.requests.last { $0.uri == "/big" }?.header("range")
            #expect(range?.hasPrefix("bytes=") == true && range != "bytes=0-", "resumed with \(range ?? "no Range")")
            #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data(content))
        }
    }

    /// logind refuses the inhibitor (polkit says no): lulld still follows PrepareForSleep and
    /// checkpoints its transfers, as far as the suspend lets it, and picks them up on waking.
    @Test func aRefusedInhibitorStillCheckpointsOnPrepareForSleep() async throws {
        let bus = try MockSystemBus()
        defer { bus.stop() }
        try bus.startTemplate("logind", busName: login1)
        let refuse = try bus.python(
            """
            manager = bus.get_object('\(login1)', '/org/freedesktop/login1')
            manager.AddMethod('org.freedesktop.login1.Manager', 'Inhibit', 'ssss', 'h',
                'raise dbus.exceptions.DBusException("not allowed", name="org.freedesktop.DBus.Error.AccessDenied")',
                dbus_interface='org.freedesktop.DBus.Mock')
            """
        )
        #expect(refuse.status == 0, "\(refuse.stderr)")
        try await withStalledFetch(bus) { daemon, client, fetch in
            try await awaitLog(daemon, "logind refused it")
            try await checkpointForSleep(bus, fetch.job, client)
            try prepareForSleep(bus, false)
            let done = try await awaitJob(fetch.job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            #expect(try Data(contentsOf: URL(fileURLWithPath: fetch.destination)) == Data(fetch.content))
        }
    }

    /// The bus goes away (a dbus-broker restart): lulld lets go of its inhibitor, which logind
    /// would otherwise hold every suspend for with nobody listening, connects again, takes the
    /// inhibitor again and checkpoints on the next PrepareForSleep.
    @Test func aLostBusIsConnectedToAgainAndTheInhibitorTakenAgain() async throws {
        let bus = try MockSystemBus()
        defer { bus.stop() }
        try bus.startTemplate("logind", busName: login1)
        try await withStalledFetch(bus) { daemon, client, fetch in
            try await awaitInhibitor(bus)
            try bus.restart()
            try await awaitLog(daemon, "lost the bus connection to logind")
            try await waitUntil("the inhibitor taken on the new bus", timeout: .seconds(20)) {
                try inhibitors(bus).contains("sleep lulld delay")
            }
            try await checkpointForSleep(bus, fetch.job, client)
            try prepareForSleep(bus, false)
            let done = try await awaitJob(fetch.job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            #expect(try Data(contentsOf: URL(fileURLWithPath: fetch.destination)) == Data(fetch.content))
        }
    }

    /// The wake (PrepareForSleep(false)) can come while the bus is gone, and is then lost: lulld
    /// once stayed asleep, starting nothing, until the next suspend cycle.
    @Test func aWakeLostWithTheBusIsNotWaitedForForever() async throws {
        let bus = try MockSystemBus()
        defer { bus.stop() }
        try bus.startTemplate("logind", busName: login1)
        try await withStalledFetch(bus) { daemon, client, fetch in
            try await awaitInhibitor(bus)
            try await checkpointForSleep(bus, fetch.job, client)
            try bus.restart()
            try await awaitLog(daemon, "following logind's suspend signals again")
            let done = try await awaitJob(
                fetch.job.id,
                in: [.succeeded, .failed],
                client: client,
                timeout: .seconds(30)
            )
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
        }
    }

    /// A paused run job is a stopped process group already: a suspend leaves it as it is, and
    /// its resume goes on in the same process. Before, the suspend ended it, and the resume
    /// started the command over.
    @Test func aSuspendLeavesAPausedCommandFrozen() async throws {
        try await withRunningCommand { bus, daemon, client, job, pid in
            _ = try await client.pause(job.id)
            try prepareForSleep(bus, true)
            try await awaitLog(daemon, "checkpointed for sleep")
            #expect(kill(pid, 0) == 0, "the paused command was ended by the suspend")
            try prepareForSleep(bus, false)
            let resumed = try await client.resume(job.id)
            #expect(resumed.state == .running && resumed.attempts == 1, "the same attempt goes on")
            _ = try await client.cancel(job.id)
        }
    }

    /// A running command sleeps through a suspend as every process does: the same process goes
    /// on after the wake, in the same attempt, and the suspend is not held up for it. Before,
    /// every suspend ended it, and it started over on wake.
    @Test func aSuspendLetsARunningCommandSleepThroughIt() async throws {
        try await withRunningCommand { bus, daemon, client, job, pid in
            let cursor = try await client.events(after: 0).lastSeq
            try prepareForSleep(bus, true)
            try await awaitLog(daemon, "checkpointed for sleep")
            #expect(daemon.log().contains("1 commands sleep through it"))
            try await waitUntil("the inhibitor to be released", timeout: .seconds(15)) {
                try !inhibitors(bus).contains("lulld")
            }
            #expect(kill(pid, 0) == 0, "the suspend ended the command")
            try prepareForSleep(bus, false)
            try await awaitInhibitor(bus)
            let after = try await client.job(job.id)
            #expect(after.state == .running && after.attempts == 1, "the same attempt goes on: \(after.state)")
            #expect(kill(pid, 0) == 0, "the command was ended after the wake")
            let events = try await client.events(after: cursor).events.filter { $0.jobId == job.id }
            #expect(events.allSatisfy { $0.type == .progress }, "\(events.map(\.type))")
            _ = try await client.cancel(job.id)
        }
    }

    /// A daemon following the mock logind, holding its inhibitor, with a command running: the
    /// job and the command's pid.
    private func withRunningCommand(
        _ body: (MockSystemBus, DaemonProcess, LullClient, JobView, Int32) async throws -> Void
    ) async throws {
        let bus = try MockSystemBus()
        defer { bus.stop() }
        try bus.startTemplate("logind", busName: login1)
        let config = "[sensors]\nbus = \"\(bus.address)\"\n"
        try await withDaemon(config: config) { daemon, client in
            try await awaitInhibitor(bus)
            let job = try await client.submit(
                JobSubmission(kind: .run, url: "", argv: ["sh", "-c", "echo $$; exec sleep 600"])
            )
            try await body(bus, daemon, client, job, try await commandPID(of: job.id, client: client))
        }
    }

    /// A daemon following the mock logind, with a 4 MiB fetch stalled after its first MiB.
    private func withStalledFetch(
        _ bus: MockSystemBus,
        _ body: (
            DaemonProcess, LullClient, (job: JobView, destination: String, content: [UInt8], server: TestHTTPServer)
        ) async throws -> Void
    ) async throws {
        let content = TestHTTPServer.bytes(count: 4 << 20, seed: 5)
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/big", .init(body: content, etag: "\"s1\"", faults: [.stallAfter(1 << 20)]))
        let config = "[sensors]\nbus = \"\(bus.address)\"\n[transfers]\ncheckpoint_interval = 0.2\n"
        try await withDaemon(config: config) { daemon, client in
            let destination = daemon.directory.appendingPathComponent("big.bin").path
            let job = try await client.submit(
                JobSubmission(kind: .fetch, url: server.url("/big"), destination: destination)
            )
            try await awaitEvent(client: client, "bytes arriving") {
                $0.jobId == job.id && $0.type == .progress && ($0.progress?.bytesDone ?? 0) > 0
            }
            try await body(daemon, client, (job, destination, content, server))
        }
    }

    /// PrepareForSleep(true), then the job's `requeued` event.
    @discardableResult
    private func checkpointForSleep(
        _ bus: MockSystemBus,
        _ job: JobView,
        _ client: LullClient
    ) async throws -> EventView {
        let cursor = try await client.events(after: 0).lastSeq
        try prepareForSleep(bus, true)
        return try await awaitEvent(client: client, after: cursor, timeout: .seconds(15), "requeued for sleep") {
            $0.jobId == job.id && $0.type == .requeued
        }
    }

    /// lulld's delay inhibitor, taken on `bus`.
    private func awaitInhibitor(_ bus: MockSystemBus) async throws {
        try await waitUntil("lulld's delay inhibitor", timeout: .seconds(15)) {
            try inhibitors(bus).contains("sleep lulld delay")
        }
    }

    private func inhibitors(_ bus: MockSystemBus) throws -> String {
        let result = try bus.python(
            """
            manager = bus.get_object('\(login1)', '/org/freedesktop/login1')
            for what, who, why, mode, uid, pid in manager.ListInhibitors(dbus_interface='org.freedesktop.login1.Manager'):
                print(what, who, mode)
            """
        )
        guard result.status == 0 else { throw TimedOut(description: "ListInhibitors failed: \(result.stderr)") }
        return result.stdout
    }

    private func prepareForSleep(_ bus: MockSystemBus, _ going: Bool) throws {
        let result = try bus.python(
            """
            manager = bus.get_object('\(login1)', '/org/freedesktop/login1')
            manager.EmitSignal('org.freedesktop.login1.Manager', 'PrepareForSleep', 'b', [\(going ? "True" : "False")],
                               dbus_interface='org.freedesktop.DBus.Mock')
            """
        )
        guard result.status == 0 else { throw TimedOut(description: "EmitSignal failed: \(result.stderr)") }
    }
}
