import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

private let upower = "org.freedesktop.UPower"
private let nm = "org.freedesktop.NetworkManager"

/// Conditions that must keep holding while a job runs, against the real daemon: UPower and
/// NetworkManager are python-dbusmock on a private bus, the server a loopback one that sends
/// slowly enough for the change to land mid-transfer.
@Suite(.enabled(if: MockSystemBus.isAvailable, "needs dbus-daemon and python3-dbusmock (make test installs them)"))
struct StopOnLostConditionsEndToEndTests {
    /// 24 MiB at about 1.3 MiB/s the first time (far more than `finish_within`'s 10 s left when
    /// the change comes), at full speed when resumed.
    static let body = TestHTTPServer.bytes(count: 24 << 20, seed: 24)
    static let slowly = TestHTTPServer.Route(
        body: body,
        etag: "\"v1\"",
        faults: [.drip(bytes: 64 << 10, every: .milliseconds(50))]
    )

    @Test func aRunningRequiresACFetchStopsOnBatteryAndResumesWithARange() async throws {
        let bus = try MockSystemBus()
        defer { bus.stop() }
        try bus.startTemplate("upower", busName: upower, parameters: #"{"OnBattery": false}"#)
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/big", Self.slowly)

        try await withDaemon(config: "[sensors]\nbus = \"\(bus.address)\"\n") { daemon, client in
            let destination = daemon.directory.appendingPathComponent("big").path
            let job = try await submitFetch(server.url("/big"), class: "utility", requiresAC: true, to: daemon, client)
            try await awaitBytes(job.id, atLeast: 512 << 10, client: client)

            let cursor = try await client.events(after: 0).lastSeq
            let stoppedWatch = Task {
                try await awaitEvent(client: client, after: cursor, timeout: .seconds(10), "job \(job.id) stopped") {
                    $0.jobId == job.id && $0.type == .stopped
                }
            }
            let unplugged = ContinuousClock.now
            try bus.setProperty(upower, "/org/freedesktop/UPower", upower, "OnBattery", "True")
            let stopped = try await stoppedWatch.value
            let reaction = ContinuousClock.now - unplugged
            print("OnBattery → stopped event in \(reaction) (includes the python call making the change)")
            #expect(reaction < .seconds(1), "stopped within 1 s of OnBattery")
            #expect(stopped.reason == "on_battery")
            #expect(stopped.state == .queued)

            let held = try await client.job(job.id)
            #expect(held.state == .queued)
            #expect(held.attempts == 0, "a stop uses up no attempt: the next start continues attempt 1")
            #expect(held.retryAt == nil, "and sets no backoff")
            #expect(held.stops == 1)
            #expect(held.lastStopReason == .onBattery)
            try await awaitWaiting(job.id, client: client) { $0.first == "on_battery" }
            #expect(held.waitingFor?.contains { $0.code == "hold_down" } == false, "the lapsed condition is the reason")
            let doneAtStop = held.progress?.bytesDone ?? 0
            #expect(doneAtStop > 0 && doneAtStop < Int64(Self.body.count))
            let sentAtStop = server.bytesSent("/big")

            // Nothing flows while it is stopped: no new request, no bytes sent.
            try await Task.sleep(for: .seconds(1))
            #expect(server.requests.count == 1)
            #expect(server.bytesSent("/big") <= sentAtStop + (64 << 10), "at most the piece in flight")
            let shown = try CommandRunner.run(
                DaemonProcess.binary("lullctl"),
                ["show", String(job.id), "--socket", daemon.socketPath]
            )
            #expect(shown.stdout.contains("stopped once: on battery"), "\(shown.stdout)")

            // AC again: it resumes once AC has held for the first hold-down (10 s), from its
            // checkpoint, under the same attempt.
            try bus.setProperty(upower, "/org/freedesktop/UPower", upower, "OnBattery", "False")
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(40))
            #expect(done.state == .succeeded)
            #expect(done.attempts == 1)
            #expect(done.result?.accounting?.stops == 1)
            let requests = server.requests
            #expect(requests.count == 2)
            let range = requests.last?.header("range") ?? ""
            #expect(range.hasPrefix("bytes=") && range != "bytes=0-", "resumed with \(range)")
            let file = try Data(contentsOf: URL(fileURLWithPath: destination))
            #expect(TestHTTPServer.sha256([UInt8](file)) == TestHTTPServer.sha256(Self.body), "byte-exact")
            let stops = try metrics(on: daemon).first {
                $0.name == "lull_job_stops_total" && $0.labels["reason"] == "on_battery"
            }
            #expect(stops?.value == 1)
        }
    }

    @Test func aBackgroundFetchStopsWhenTheLinkBecomesMetered() async throws {
        let bus = try MockSystemBus()
        defer { bus.stop() }
        try startNetworkManager(bus, metered: false)
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/big", Self.slowly)

        try await withDaemon(config: "[sensors]\nbus = \"\(bus.address)\"\n") { daemon, client in
            let job = try await submitFetch(server.url("/big"), class: "background", to: daemon, client)
            try await awaitBytes(job.id, atLeast: 256 << 10, client: client)
            try bus.setProperty(nm, "/org/freedesktop/NetworkManager", nm, "Metered", "dbus.UInt32(1)")
            let stopped = try await awaitEvent(client: client, timeout: .seconds(10), "job \(job.id) stopped") {
                $0.jobId == job.id && $0.type == .stopped
            }
            #expect(stopped.reason == "metered")
            let held = try await awaitWaiting(job.id, client: client) { $0 == ["metered"] }
            #expect(held.attempts == 0)
            #expect(held.stops == 1)
        }
    }

    /// A 30 MiB job on a metered link under a 10 MiB daily budget stops once the budget is
    /// spent, not after the file: at most the budget plus one progress interval's bytes.
    @Test func aMeteredBudgetStopsAJobWhenItRunsOut() async throws {
        let bus = try MockSystemBus()
        defer { bus.stop() }
        try startNetworkManager(bus, metered: true)
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        let body = TestHTTPServer.bytes(count: 30 << 20, seed: 30)
        // About 1.3 MiB/s: one progress interval (1 s) is about 1.3 MiB, and at 10 MiB the job
        // has 15 s left, more than `finish_within`.
        server.route("/big", .init(body: body, faults: [.drip(bytes: 64 << 10, every: .milliseconds(50))]))
        let config = """
            [sensors]
            bus = "\(bus.address)"

            [classes.utility]
            metered_bytes_per_day = \(10 << 20)
            """
        try await withDaemon(config: config) { daemon, client in
            let job = try await submitFetch(server.url("/big"), class: "utility", to: daemon, client)
            let stopped = try await awaitEvent(client: client, timeout: .seconds(30), "job \(job.id) stopped") {
                $0.jobId == job.id && $0.type == .stopped
            }
            #expect(stopped.reason == "quota")
            let held = try await client.job(job.id)
            let moved = held.progress?.bytesDone ?? 0
            let interval = Int64(64 << 10) * 20
            print("metered budget 10 MiB: stopped after \(moved) bytes")
            #expect(moved >= 10 << 20 && moved <= (10 << 20) + interval, "stopped after \(moved) bytes")
            try await awaitWaiting(job.id, client: client) { $0.contains("quota") }
        }
    }

    /// On battery: a job about 1 s from its end (`finish_within` 10), a job of a class that
    /// lets work finish (interactive) and a job past its deadline with `on_deadline = run` all
    /// go on; none is stopped.
    @Test func jobsNearTheirEndOfFinishingClassesAndPastADeadlineAreNotStopped() async throws {
        let bus = try MockSystemBus()
        defer { bus.stop() }
        try bus.startTemplate("upower", busName: upower, parameters: #"{"OnBattery": false}"#)
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        let short = TestHTTPServer.bytes(count: 4 << 20, seed: 6)
        server.route("/short", .init(body: short, faults: [.drip(bytes: 64 << 10, every: .milliseconds(50))]))
        server.route("/long", Self.slowly)
        server.route("/overdue", Self.slowly)

        try await withDaemon(config: "[sensors]\nbus = \"\(bus.address)\"\n") { daemon, client in
            func submit(_ path: String, _ jobClass: String, deadline: Date? = nil) async throws -> JobView {
                try await client.submit(
                    JobSubmission(
                        kind: .fetch,
                        url: server.url(path),
                        destination: daemon.directory.appendingPathComponent(String(path.dropFirst())).path,
                        jobClass: jobClass,
                        requiresAC: true,
                        deadline: deadline,
                        onDeadline: deadline == nil ? nil : .run
                    )
                )
            }
            let nearEnd = try await submit("/short", "utility")
            let finishing = try await submit("/long", "interactive")
            let overdue = try await submit("/overdue", "utility", deadline: Date().addingTimeInterval(1))
            // About 1 s left of the short one (1.3 MiB/s), and the deadline has passed.
            try await awaitBytes(nearEnd.id, atLeast: Int64(short.count) - (1300 << 10), client: client)
            let cursor = try await client.events(after: 0).lastSeq
            try bus.setProperty(upower, "/org/freedesktop/UPower", upower, "OnBattery", "True")
            try await withTimeout(.seconds(10), "the daemon to see battery power") {
                while try await client.status().world?.power.onBattery != true {
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            #expect(try await awaitJob(nearEnd.id, in: [.succeeded, .failed], client: client).state == .succeeded)
            #expect(try await client.job(finishing.id).state == .running)
            #expect(try await client.job(overdue.id).state == .running)
            let events = try await client.events(after: cursor).events
            #expect(!events.contains { $0.type == .stopped }, "\(events.map { "\($0.jobId) \($0.type)" })")
            #expect(try await client.job(nearEnd.id).stops == nil)
        }
    }

    /// A charger at its charge limit flips every 2 s (20 s here, 2 minutes in the long form):
    /// the job stops and starts at most 5 times, and finishes once power is steady.
    @Test func aFlappingChargerDoesNotStartAndStopAJobInALoop() async throws {
        let bus = try MockSystemBus()
        defer { bus.stop() }
        try bus.startTemplate("upower", busName: upower, parameters: #"{"OnBattery": false}"#)
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/big", Self.slowly)
        let flapping = TestScale.pick(quick: 20.0, long: 120.0)

        try await withDaemon(config: "[sensors]\nbus = \"\(bus.address)\"\n") { daemon, client in
            let destination = daemon.directory.appendingPathComponent("big").path
            let job = try await submitFetch(server.url("/big"), class: "utility", requiresAC: true, to: daemon, client)
            try await awaitBytes(job.id, atLeast: 64 << 10, client: client)
            let begin = ContinuousClock.now
            var onBattery = false
            while ContinuousClock.now - begin < .seconds(flapping) {
                onBattery.toggle()
                try bus.setProperty(
                    upower,
                    "/org/freedesktop/UPower",
                    upower,
                    "OnBattery",
                    onBattery ? "True" : "False"
                )
                try await Task.sleep(
                    until: begin + .seconds(2) * Double(Int((ContinuousClock.now - begin) / .seconds(2)) + 1)
                )
            }
            if onBattery { try bus.setProperty(upower, "/org/freedesktop/UPower", upower, "OnBattery", "False") }
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(60))
            #expect(done.state == .succeeded)
            let events = try await client.events(after: 0).events.filter { $0.jobId == job.id }
            let starts = events.filter { $0.type == .started }.count
            let stops = events.filter { $0.type == .stopped }.count
            print("flapping \(flapping) s: \(stops) stops, \(starts) starts")
            #expect(stops >= 1 && stops <= 5, "\(stops) stops")
            #expect(starts <= 6, "\(starts) starts")
            let file = try Data(contentsOf: URL(fileURLWithPath: destination))
            #expect(TestHTTPServer.sha256([UInt8](file)) == TestHTTPServer.sha256(Self.body))
        }
    }

    /// The daemon's `TZ` is chosen so that its local time is 04:59:52 now: maintenance's window
    /// (01:00–05:00) closes 8 s into a transfer that needs about 38 s.
    @Test func aClassWindowClosingStopsAMaintenanceJob() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        let body = TestHTTPServer.bytes(count: 24 << 20, seed: 5)
        server.route("/big", .init(body: body, faults: [.drip(bytes: 32 << 10, every: .milliseconds(50))]))
        let closesAt = Date().addingTimeInterval(8)
        try await withDaemon(environment: ["TZ": posixZone(localTime: 5 * 3600, at: closesAt)]) { daemon, client in
            let job = try await submitFetch(server.url("/big"), class: "maintenance", to: daemon, client)
            let stopped = try await awaitEvent(client: client, timeout: .seconds(20), "job \(job.id) stopped") {
                $0.jobId == job.id && $0.type == .stopped
            }
            #expect(stopped.reason == "outside_window")
            let late = Date().timeIntervalSince(closesAt)
            print("window closed → stopped event after \(late) s")
            #expect(late > -0.5 && late < 1.5, "stopped at the window's closing, \(late) s after it")
            let held = try await awaitWaiting(job.id, client: client) { $0 == ["outside_window"] }
            #expect((held.progress?.bytesDone ?? 0) < Int64(body.count))
        }
    }

    private func startNetworkManager(_ bus: MockSystemBus, metered: Bool) throws {
        try bus.startTemplate("networkmanager", busName: nm)
        let result = try bus.python(
            """
            mgr = dbus.Interface(bus.get_object('org.freedesktop.NetworkManager', '/org/freedesktop/NetworkManager'), 'org.freedesktop.DBus.Mock')
            mock = dbus.Interface(bus.get_object('org.freedesktop.NetworkManager', '/org/freedesktop'), 'org.freedesktop.DBus.Mock')
            dev = mock.AddEthernetDevice('mock_Ethernet1', 'eth0', 100)
            mgr.AddObject('/org/freedesktop/NetworkManager/ActiveConnection/7', 'org.freedesktop.NetworkManager.Connection.Active',
                          {'Devices': dbus.Array([dbus.ObjectPath(dev)], signature='o'), 'Type': '802-3-ethernet'}, [])
            mgr.AddProperty('org.freedesktop.NetworkManager', 'Metered', dbus.UInt32(\(metered ? 1 : 2)))
            mgr.AddProperty('org.freedesktop.NetworkManager', 'PrimaryConnectionType', '802-3-ethernet')
            mgr.AddProperty('org.freedesktop.NetworkManager', 'PrimaryConnection', dbus.ObjectPath('/org/freedesktop/NetworkManager/ActiveConnection/7'))
            """
        )
        guard result.status == 0 else {
            throw TimedOut(description: "NetworkManager mock set-up failed: \(result.stderr)")
        }
    }
}

/// Waits until the running job has received at least `bytes`.
func awaitBytes(_ id: Int64, atLeast bytes: Int64, client: LullClient) async throws {
    try await withTimeout(.seconds(20), "job \(id) to receive \(bytes) bytes") {
        while true {
            let job = try await client.job(id)
            if job.state == .running, (job.progress?.bytesDone ?? 0) >= bytes { return }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// A POSIX `TZ` under which the local time of day at `date` is `localTime` seconds after
/// midnight (offsets to the second, as glibc allows).
func posixZone(localTime: Int, at date: Date) -> String {
    let utc = Int(date.timeIntervalSince1970.rounded()) % 86_400
    var east = ((localTime - utc) % 86_400 + 86_400) % 86_400
    if east > 43_200 { east -= 86_400 }
    // TZ names the offset to add to local time to get UTC: west of Greenwich is positive.
    let west = -east
    let sign = west < 0 ? "-" : "+"
    let magnitude = abs(west)
    return String(format: "LUL%@%d:%02d:%02d", sign, magnitude / 3600, magnitude / 60 % 60, magnitude % 60)
}

/// A fetch of `url` into the daemon's directory as `big`.
func submitFetch(
    _ url: String,
    class jobClass: String,
    requiresAC: Bool? = nil,
    to daemon: DaemonProcess,
    _ client: LullClient
) async throws -> JobView {
    try await client.submit(
        JobSubmission(
            kind: .fetch,
            url: url,
            destination: daemon.directory.appendingPathComponent("big").path,
            jobClass: jobClass,
            requiresAC: requiresAC
        )
    )
}
