import Foundation
import Logging
import LullAPI
import LullClient
import LullCore
import LullSensors
import LullStore
import LullTestSupport
import Synchronization
import Testing

@testable import LullDaemon

/// The systemd adapters that can be checked without booting systemd: journal field names,
/// the STATUS rate limit, unit names and the `[hooks]` policy. (Tests/LullSystemdTests runs
/// all of it under a real systemd.)
@Suite struct SystemdAdapterTests {
    @Test func metadataKeysBecomeJournalFieldNames() {
        #expect(JournalLogHandler.fieldName("job_id") == "JOB_ID")
        #expect(JournalLogHandler.fieldName("owner_uid") == "OWNER_UID")
        #expect(JournalLogHandler.fieldName("delay-s.x") == "DELAY_S_X")
        #expect(JournalLogHandler.fieldName("_private") == "PRIVATE", "a leading underscore is reserved for journald")
        #expect(JournalLogHandler.fieldName("1st") == "ST")
        #expect(JournalLogHandler.fieldName("__") == nil)
        #expect(JournalLogHandler.fieldName(String(repeating: "a", count: 100))?.count == 64)
        #expect(JournalLogHandler.priority(.error) == 3 && JournalLogHandler.priority(.notice) == 5)
    }

    @Test func statusLinesAreCoalescedToOnePerInterval() async throws {
        let sent = Mutex<[(line: String, at: ContinuousClock.Instant)]>([])
        let counter = Mutex(1)
        let computed = Mutex(0)
        let status = ServiceStatus(
            interval: .milliseconds(300),
            sleeper: TaskSleeper(),
            line: {
                computed.withLock { $0 += 1 }
                return "state \(counter.withLock { $0 })"
            },
            send: { line in sent.withLock { $0.append((line, .now)) } }
        )
        func lines() -> [String] { sent.withLock { $0.map(\.line) } }
        // Nothing was sent for a long time: the first change goes out at once.
        status.changed()
        try await waitUntil("the first line") { lines().count == 1 }
        // Fifty changes inside the next interval make one line, with the latest state.
        for value in 2...51 {
            counter.withLock { $0 = value }
            status.changed()
        }
        try await waitUntil("the second line") { lines().count == 2 }
        #expect(lines() == ["state 1", "state 51"], "fifty changes, one line, with the latest state")
        let gap = sent.withLock { $0[1].at - $0[0].at }
        #expect(gap >= .milliseconds(290), "the second line waits out the interval (\(gap))")
        // An unchanged line is computed but not sent; the next real change is.
        status.changed()
        try await waitUntil("the unchanged line to be computed") { computed.withLock { $0 } == 3 }
        counter.withLock { $0 = 52 }
        status.changed()
        try await waitUntil("the third line") { lines().count >= 3 }
        #expect(lines() == ["state 1", "state 51", "state 52"], "an unchanged line is not sent again")
    }

    /// A stop or start-up is given more time only while it makes progress: a wedged drain must
    /// still meet TimeoutStopSec=. Driven period by period by the sleeper, no wall time.
    @Test func timeoutIsExtendedOnlyWhileProgressMoves() async throws {
        let periods = Mutex(0)
        let progress = Mutex(0)
        let extendedAfter = Mutex<[Int]>([])
        let loop = Task {
            await SystemdNotifier.extendWhileProgressing(
                every: .seconds(5),
                progress: { progress.withLock { $0 } },
                sleeper: ScriptedSleeper { _ in
                    // Progress in periods 1 to 3, then none; the loop is parked from period 8.
                    let period = periods.withLock {
                        $0 += 1
                        return $0
                    }
                    if period <= 3 { progress.withLock { $0 += 1 } }
                    if period >= 8 { try await Task.sleep(for: .seconds(3600)) }
                },
                extend: { amount in
                    #expect(amount == .seconds(15))
                    extendedAfter.withLock { $0.append(periods.withLock { $0 }) }
                }
            )
        }
        try await waitUntil("eight periods") { periods.withLock { $0 } >= 8 }
        loop.cancel()
        await loop.value
        #expect(extendedAfter.withLock { $0 } == [0, 1, 2, 3], "at once, then after each period that moved")
    }

    /// A hook whose start fails (a bus that is restarting) is tried again after each delay,
    /// and recorded as run only once it started or was given up; no wall time passes.
    @Test func aFailedHookStartIsTriedAgainThenRecorded() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-hook-\(UUID().uuidString).sqlite"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try SQLiteJobStore(path: path)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let jobs = try await store.insert(
            ["a.service", "b.service"].map {
                NewJob(
                    owner: OwnerID(1000),
                    spec: JobSpec(.fetch(FetchJob(url: "http://h/x", destination: "/tmp/x")), onCompleteUnit: $0),
                    createdAt: now
                )
            }
        )
        for job in jobs {
            _ = try await store.apply(
                JobUpdate(id: job.id, from: [.queued], to: .cancelled, event: .cancelled, time: now)
            )
        }
        let ended = try await store.pendingCompletionHooks().compactMap(\.job)
        let waits = Mutex<[Duration]>([])
        let starter = FlakyStarter(failuresBeforeStart: ["a.service": 2, "b.service": 9])
        let hooks = CompletionHooks(
            store: store,
            starter: starter,
            clock: FixedClock(now),
            sleeper: ScriptedSleeper { delay in waits.withLock { $0.append(delay) } },
            logger: Logger(label: "lull.test"),
            retryDelays: [.seconds(1), .seconds(5), .seconds(30)]
        )
        await hooks.run(for: ended[0])
        #expect(starter.calls("a.service") == 3 && starter.started == ["a.service"], "two failures, then started")
        await hooks.run(for: ended[1])
        #expect(starter.calls("b.service") == 4, "the first try and one per delay, then given up")
        #expect(waits.withLock { $0 } == [.seconds(1), .seconds(5), .seconds(1), .seconds(5), .seconds(30)])
        #expect(try await store.pendingCompletionHooks().isEmpty, "both are settled")
    }

    @Test func unitNamesAndTemplateInstances() throws {
        #expect(UnitName("sync-done.service") != nil)
        #expect(UnitName("backup@.service")?.instance(for: JobID(42)) == "backup@42.service")
        #expect(UnitName("backup@nightly.service")?.instance(for: JobID(42)) == "backup@nightly.service")
        #expect(UnitName("idle.target") != nil)
        for bad in [
            "sync.timer", "sync", ".service", "@.service", "a@b@c.service", "x y.service", "../x.service",
            String(repeating: "a", count: 250) + ".service",
        ] {
            #expect(UnitName(bad) == nil, "\(bad)")
        }
    }

    @Test func hooksSectionIsValidated() throws {
        let config = try ConfigLoader.parse(
            "[hooks]\nmanager = \"user\"\nallowed_units = [\"a.service\", \"b@.service\"]\n",
            file: "t.toml"
        )
        #expect(config.hooks.manager == .user)
        #expect(config.hooks.allowedUnits == ["a.service", "b@.service"])
        #expect(throws: ConfigError.self) {
            try ConfigLoader.parse("[hooks]\nallowed_units = [\"reboot\"]\n", file: "t.toml")
        }
        do {
            _ = try ConfigLoader.parse("[hooks]\nmanager = \"both\"\nunits = 1\n", file: "t.toml")
            Issue.record("accepted a bad [hooks] section")
        } catch {
            #expect(error.description.contains("t.toml:2: hooks.manager"))
            #expect(error.description.contains("t.toml:3: hooks.units: unknown key; known: allowed_units, manager"))
        }
        let named = try ConfigLoader.parse("[daemon]\nsocket_name = \"ctl\"\n", file: "t.toml")
        #expect(named.socketName == "ctl")
        #expect(throws: ConfigError.self) {
            try ConfigLoader.parse("[daemon]\nsocket_name = \"a:b\"\n", file: "t.toml")
        }
    }

    @Test func theSystemManagerAllowsOnlyListedUnitsAndAUserManagerAny() throws {
        let system = HookManager(.system).allowedUnits(["ok.service"])
        let user = HookManager(.user).allowedUnits([])
        let spec = JobSpec(.fetch(FetchJob(url: "http://h/x", destination: "/tmp/x")), onCompleteUnit: "other.service")
        let refusal = #expect(throws: ValidationError.self) {
            try JobSpecValidator(limits: SubmissionLimits(), allowedUnits: system).validate(spec)
        }
        #expect(refusal?.field == "on_complete_unit")
        #expect(refusal?.message.contains("ask the administrator") == true)
        try JobSpecValidator(limits: SubmissionLimits(), allowedUnits: user).validate(spec)
        var bad = spec
        bad.onCompleteUnit = "x.timer"
        #expect(throws: ValidationError.self) {
            try JobSpecValidator(limits: SubmissionLimits(), allowedUnits: user).validate(bad)
        }
    }

}

/// Completion hooks through a real daemon: StartUnit reaches python-dbusmock's systemd
/// template on a private bus; an unlisted unit is refused at submission.
@Suite(.enabled(if: MockSystemBus.isAvailable, "needs dbus-daemon and python3-dbusmock (make test installs them)"))
struct CompletionHookTests {
    @Test func aFinishedJobStartsItsUnitAndAnUnlistedUnitIsRefused() async throws {
        let bus = try MockSystemBus()
        defer { bus.stop() }
        try bus.startTemplate("systemd", busName: "org.freedesktop.systemd1")
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.serve("/f", Array("finished\n".utf8))
        let config = "[hooks]\nmanager = \"\(bus.address)\"\nallowed_units = [\"done.service\", \"missing.service\"]\n"
        try await withDaemon(config: config) { daemon, client in
            let refused = await #expect(throws: LullClientError.self) {
                try await client.submit(
                    JobSubmission(
                        kind: .fetch,
                        url: server.url("/f"),
                        destination: daemon.directory.appendingPathComponent("r").path,
                        onCompleteUnit: "reboot.target"
                    )
                )
            }
            guard case .api(let status, let detail)? = refused else {
                throw TimedOut(description: "expected an API error")
            }
            #expect(status == 400 && detail.field == "on_complete_unit")
            #expect(detail.message.contains("ask the administrator"))

            // (dbusmock cannot hold units with "@" in their names; templates are tested under systemd.)
            try addMockUnit(bus, "done.service")
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/f"),
                    destination: daemon.directory.appendingPathComponent("f").path,
                    onCompleteUnit: "done.service"
                )
            )
            #expect(try await client.job(job.id).onCompleteUnit == "done.service")
            _ = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            try await awaitLog(daemon, "completion hook started done.service")
            #expect(try unitState(bus, "done.service") == "active")

            // A unit systemd does not know: the failure is logged with the job.
            let failing = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/f"),
                    destination: daemon.directory.appendingPathComponent("g").path,
                    onCompleteUnit: "missing.service"
                )
            )
            _ = try await awaitJob(failing.id, in: [.succeeded, .failed], client: client)
            try await awaitLog(daemon, "completion hook missing.service could not be started")
            #expect(daemon.log().contains("error_code=hook_failed"))
        }
    }

    private func addMockUnit(_ bus: MockSystemBus, _ name: String) throws {
        let result = try bus.python(
            """
            bus.get_object('org.freedesktop.systemd1', '/org/freedesktop/systemd1').AddMockUnit('\(name)', dbus_interface='org.freedesktop.DBus.Mock')
            """
        )
        guard result.status == 0 else {
            throw TimedOut(description: "AddMockUnit failed: \(result.stderr.suffix(600))")
        }
    }

    private func unitState(_ bus: MockSystemBus, _ name: String) throws -> String {
        try bus.python(
            """
            manager = bus.get_object('org.freedesktop.systemd1', '/org/freedesktop/systemd1')
            path = manager.GetUnit('\(name)', dbus_interface='org.freedesktop.systemd1.Manager')
            print(bus.get_object('org.freedesktop.systemd1', path).Get('org.freedesktop.systemd1.Unit', 'ActiveState', dbus_interface='org.freedesktop.DBus.Properties'))
            """
        ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Refuses each unit a given number of times, then starts it.
private final class FlakyStarter: UnitStarting {
    private let state: Mutex<(failuresLeft: [String: Int], calls: [String: Int], started: [String])>

    init(failuresBeforeStart: [String: Int]) { state = Mutex((failuresBeforeStart, [:], [])) }

    func start(unit: String) async throws -> String {
        try state.withLock { state in
            state.calls[unit, default: 0] += 1
            if state.failuresLeft[unit, default: 0] > 0 {
                state.failuresLeft[unit, default: 0] -= 1
                throw BusRestarting()
            }
            state.started.append(unit)
            return "/org/freedesktop/systemd1/job/1"
        }
    }

    func calls(_ unit: String) -> Int { state.withLock { $0.calls[unit] ?? 0 } }

    struct BusRestarting: Error {}
    var started: [String] { state.withLock { $0.started } }
}

/// `GET /v1/samples` leases the sampler: many requests at once make one claim, and when the
/// lease lapses it is given back and sampling stops. (Requests that arrived while the first
/// claim was being made once made claims of their own, and the sampler ran for ever.)
@Suite struct SampleWatchTests {
    @Test func concurrentWatchersShareOneClaimThatLapses() async throws {
        let sampler = Sampler(configuration: .init(cgroupRoot: nil, busyInterval: .milliseconds(20)))
        // The lease runs on time the test moves, so a slow machine cannot let it lapse early.
        let time = ManualTime()
        let watch = SampleWatch(sampler: sampler, lease: .milliseconds(100), sleeper: time, clock: time)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<50 { group.addTask { _ = await watch.samples() } }
        }
        #expect(await sampler.demandCount == 1)
        #expect(await sampler.isRunning)
        try await waitUntil("the lease's timer to be set") { time.sleeping == 1 }
        time.advance(by: .milliseconds(99))
        #expect(await sampler.demandCount == 1, "the lease holds until it lapses")
        time.advance(by: .milliseconds(1))
        try await waitUntil("the lease to lapse and sampling to stop") {
            await sampler.demandCount == 0
        }
        #expect(await !sampler.isRunning)
        await watch.stop()
    }
}
