import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

private let upower = "org.freedesktop.UPower"

/// A running `requires_ac` command and the charger pulled, against the real daemon with UPower
/// as python-dbusmock on a private bus: SIGTERM, back to the queue, and on AC again a run from
/// the beginning (commands do not resume).
@Suite(.enabled(if: MockSystemBus.isAvailable, "needs dbus-daemon and python3-dbusmock (make test installs them)"))
struct RunStopOnLostConditionsTests {
    @Test func aRequiresACCommandGetsSIGTERMOnBatteryAndRunsAgainOnAC() async throws {
        let bus = try MockSystemBus()
        defer { bus.stop() }
        try bus.startTemplate("upower", busName: upower, parameters: #"{"OnBattery": false}"#)
        try await withDaemon(config: "[sensors]\nbus = \"\(bus.address)\"\n") { daemon, client in
            let trace = daemon.directory.appendingPathComponent("trace").path
            // The first run waits for SIGTERM and says it got it; a second run ends at once.
            let script = """
                if [ -s \(trace) ]; then echo again >> \(trace); exit 0; fi
                echo start >> \(trace); trap 'echo term >> \(trace); exit 143' TERM; sleep 60 & wait
                """
            let job = try await client.submit(
                JobSubmission(
                    kind: .run,
                    url: "",
                    jobClass: "utility",
                    requiresAC: true,
                    argv: ["sh", "-c", script]
                )
            )
            try await Self.until { Self.read(trace) == "start\n" }

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
            print("OnBattery → run job stopped in \(reaction) (includes the python call making the change)")
            #expect(reaction < .seconds(1), "stopped within 1 s of OnBattery")
            #expect(stopped.reason == "on_battery" && stopped.state == .queued)
            #expect(Self.read(trace) == "start\nterm\n", "the command got SIGTERM: \(Self.read(trace))")
            let held = try await client.job(job.id)
            #expect(held.state == .queued && held.stops == 1)

            try bus.setProperty(upower, "/org/freedesktop/UPower", upower, "OnBattery", "False")
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(40))
            #expect(done.state == .succeeded && done.result?.exitCode == 0)
            #expect(Self.read(trace) == "start\nterm\nagain\n", "run again from the beginning")
        }
    }

    static func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    static func until(_ condition: () -> Bool) async throws {
        for _ in 0..<400 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw TimedOut(description: "condition never held")
    }
}
