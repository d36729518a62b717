import Foundation
import Logging
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

@testable import LullDaemon

/// Runs `body` against a fresh real lulld and a client on its socket; always cleans up.
/// `environment` is added to the daemon's (e.g. `HTTP_PROXY`); `launcher` execs lulld (e.g. in a namespace).
func withDaemon(
    config: String? = nil,
    environment: [String: String] = [:],
    launcher: [String] = [],
    _ body: (DaemonProcess, LullClient) async throws -> Void
) async throws {
    let daemon = try DaemonProcess(config: config, launcher: launcher, environment: environment)
    defer { daemon.remove() }
    try daemon.start()
    let client = LullClient(socketPath: daemon.socketPath)
    do {
        try await body(daemon, client)
        await client.shutdown()
    } catch {
        await client.shutdown()
        print("lulld log:\n\(daemon.log())")
        throw error
    }
}

/// A process's anonymous resident memory (`RssAnon`), in bytes: what it allocated, where a
/// backlog it buffers would be; 0 once it is gone. Not `VmRSS`: that counts lulld's code pages
/// too, which it gives back as start-up ends and faults in again by the megabyte, so two readings
/// moved by several MiB on timing alone.
func allocatedBytes(of pid: Int32) -> Int64 {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("RssAnon:") } ?? ""
    return (Int64(line.split(separator: " ").dropFirst().first ?? "") ?? 0) << 10
}

struct TimedOut: Error, CustomStringConvertible {
    var description: String
}

/// Runs `body`, failing with `what` if it takes longer than `limit`.
func withTimeout<T: Sendable>(
    _ limit: Duration,
    _ what: String,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw TimedOut(description: "timed out after \(limit) waiting for \(what)")
        }
        let value = try await group.next()!
        group.cancelAll()
        return value
    }
}

/// Follows the event stream until job `id` reaches one of `states`; fails after `timeout`.
func awaitJob(
    _ id: Int64,
    in states: Set<JobState>,
    client: LullClient,
    timeout: Duration = .seconds(60)
) async throws -> JobView {
    try await withTimeout(timeout, "job \(id) to reach \(states)") {
        for try await event in client.followEvents(after: 0) where event.jobId == id && states.contains(event.state) {
            return try await client.job(id)
        }
        throw TimedOut(description: "event stream ended before job \(id) reached \(states)")
    }
}

/// Follows the event stream from `after` until an event matches; fails after `timeout`.
@discardableResult
func awaitEvent(
    client: LullClient,
    after: Int64 = 0,
    timeout: Duration = .seconds(60),
    _ description: String,
    where predicate: @escaping @Sendable (EventView) -> Bool
) async throws -> EventView {
    try await withTimeout(timeout, description) {
        for try await event in client.followEvents(after: after) where predicate(event) { return event }
        throw TimedOut(description: "event stream ended before \(description)")
    }
}

/// The pid a run job's command printed as its first line (`echo $$; exec …`).
func commandPID(of job: Int64, client: LullClient) async throws -> Int32 {
    try await withTimeout(.seconds(10), "job \(job)'s pid in its output") { () -> Int32 in
        while true {
            let text = String(decoding: try await client.output(job), as: UTF8.self)
            if let line = text.split(separator: "\n").first, let pid = Int32(line) { return pid }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// The job's view once the scheduler holds it for reasons that satisfy `matches` (their codes).
/// A stop's event comes with the store's commit and the scheduler queues the job right after,
/// so a view read at the event can still show no reason.
@discardableResult
func awaitWaiting(
    _ job: Int64,
    client: LullClient,
    _ matches: @escaping @Sendable ([String]) -> Bool
) async throws -> JobView {
    try await withTimeout(.seconds(5), "job \(job) to wait for its conditions") { () -> JobView in
        while true {
            let view = try await client.job(job)
            if matches(view.waitingFor?.map(\.code) ?? []) { return view }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// Small retry delays and frequent checkpoints, so fault tests run in seconds.
let fastRetries = """
    [retry]
    base_seconds = 0.05
    cap_seconds = 0.2
    max_attempts = 8

    [transfers]
    checkpoint_interval = 0.1
    progress_interval = 0.05
    """

/// curl over the control socket; returns the HTTP status and the body.
func curl(_ socket: String, _ method: String, _ path: String, body: Data? = nil) throws -> (Int, String) {
    var arguments = ["-sS", "--unix-socket", socket, "-X", method, "-o", "-", "-w", "\n%{http_code}"]
    if body != nil { arguments += ["-H", "content-type: application/json", "--data-binary", "@-"] }
    arguments.append("http://lull\(path)")
    let result = try CommandRunner.run("/usr/bin/curl", arguments, input: body)
    let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    let status = Int(lines.last ?? "") ?? -1
    return (status, lines.dropLast().joined(separator: "\n"))
}

/// The error envelope of an API answer.
func apiError(_ body: String) throws -> APIErrorBody.Detail {
    try JSONDecoder().decode(APIErrorBody.self, from: Data(body.utf8)).error
}

let holdEverything = """
    [limits]
    max_concurrent = 0
    """

/// UPower (python-dbusmock) on `bus`, on battery with a discharging battery at `percent`.
func startUPowerOnBattery(_ bus: MockSystemBus, percent: Double) throws {
    let upower = "org.freedesktop.UPower"
    let displayDevice = "/org/freedesktop/UPower/devices/DisplayDevice"
    let deviceInterface = "org.freedesktop.UPower.Device"
    try bus.startTemplate("upower", busName: upower, parameters: #"{"OnBattery": true}"#)
    try bus.setProperty(upower, displayDevice, deviceInterface, "Type", "dbus.UInt32(2)")
    try bus.setProperty(upower, displayDevice, deviceInterface, "IsPresent", "True")
    try bus.setProperty(upower, displayDevice, deviceInterface, "Percentage", "dbus.Double(\(percent))")
    try bus.setProperty(upower, displayDevice, deviceInterface, "State", "dbus.UInt32(2)")
}

/// Settings that run `count` transfers at once, all of them to one host if need be.
func concurrencyConfig(_ count: Int, then more: String = "") -> String {
    """
    [limits]
    max_concurrent = \(count)
    max_per_host = \(count)

    [classes.default]
    max_concurrent = \(count)
    \(more)
    """
}

/// Submits, in one batch, fetches of the server's `/f0` … into `directory`'s `f0` …, made first.
func submitFetches(
    _ count: Int,
    from server: TestHTTPServer,
    into directory: URL,
    client: LullClient
) async throws -> [JobView] {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return try await client.submit(
        batch: (0..<count).map { index in
            JobSubmission(
                kind: .fetch,
                url: server.url("/f\(index)"),
                destination: directory.appendingPathComponent("f\(index)").path
            )
        }
    )
}

/// A dispatcher over `store` that starts nothing (`max_concurrent = 0`), for tests of what it
/// holds and records.
func holdingDispatcher(store: any JobStore, engines: [JobKind: any TransferEngine] = [:]) -> Dispatcher {
    var policy = SchedulingPolicy.defaults
    policy.maxConcurrent = ConfiguredLimit(0)
    return Dispatcher(
        store: store,
        engines: engines,
        policy: policy,
        pressure: NoPressureGauge(),
        metrics: DaemonMetrics(),
        clock: SystemClock(),
        sleeper: TaskSleeper(),
        logger: Logger(label: "lull.test")
    )
}
