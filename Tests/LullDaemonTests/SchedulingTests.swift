import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

private let upower = "org.freedesktop.UPower"
private let displayDevice = "/org/freedesktop/UPower/devices/DisplayDevice"
private let deviceInterface = "org.freedesktop.UPower.Device"

/// Power policy end to end: UPower (python-dbusmock on a private bus) → lulld's sensors →
/// scheduler → job start.
@Suite(.enabled(if: MockSystemBus.isAvailable, "needs dbus-daemon and python3-dbusmock (make test installs them)"))
struct PowerPolicyTests {
    @Test func aBackgroundJobHeldOnBatteryStartsWhenACReturns() async throws {
        let bus = try MockSystemBus()
        defer { bus.stop() }
        try startUPowerOnBattery(bus, percent: 18)

        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.serve("/bg", Array("background data\n".utf8))
        let config = "[sensors]\nbus = \"\(bus.address)\"\n"
        try await withDaemon(config: config) { daemon, client in
            let held = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/bg"),
                    destination: daemon.directory.appendingPathComponent("bg").path,
                    jobClass: "background"
                )
            )
            let urgent = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/bg"),
                    destination: daemon.directory.appendingPathComponent("now").path,
                    jobClass: "interactive"
                )
            )
            #expect(
                try await awaitJob(urgent.id, in: [.succeeded, .failed], client: client).state == .succeeded,
                "interactive work runs on battery"
            )

            let explanation = try await client.explain(held.id)
            #expect(explanation.state == .queued)
            #expect(explanation.reasons.map(\.code) == ["battery_below"], "\(explanation.reasons.map(\.text))")
            #expect(explanation.reasons.first?.text.contains("18") == true)
            #expect(explanation.world.power.source == "UPower DisplayDevice")
            let shown = try await client.job(held.id)
            #expect(shown.waitingFor?.first?.code == "battery_below")

            // Plug in: UPower says OnBattery=false; the held job must start at once.
            let cursor = try await client.events(after: 0).lastSeq
            let startedWatch = Task {
                try await awaitEvent(client: client, after: cursor, timeout: .seconds(20), "job \(held.id) starting") {
                    $0.jobId == held.id && $0.type == .started
                }
            }
            // The change is made by a python process; its start-up counts against us, so this is an upper bound.
            let before = ContinuousClock.now
            try bus.setProperty(upower, "/org/freedesktop/UPower", upower, "OnBattery", "False")
            _ = try await startedWatch.value
            let latency = ContinuousClock.now - before
            print(
                "AC back → held background job started within \(latency) of the D-Bus change (includes the python call making it)"
            )
            #expect(latency < .milliseconds(2000), "generous bound; the target is 250 ms")
            #expect(try await awaitJob(held.id, in: [.succeeded, .failed], client: client).state == .succeeded)
        }
    }

    @Test func simulateSaysWhatWouldRunWithoutChangingAnything() async throws {
        try await withDaemon(
            config: holdEverything.replacingOccurrences(of: "max_concurrent = 0", with: "max_concurrent = 4")
                + "\n[classes.default]\nmax_concurrent = 0\n"
        ) { daemon, client in
            let background = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: "http://127.0.0.1:9/b",
                    destination: "/tmp/lull-sim-b",
                    jobClass: "background",
                    notBefore: Date().addingTimeInterval(3600)
                )
            )
            let simulation = try await client.simulate(SimulateRequest(onBattery: true, battery: 15, metered: true))
            let reasons = simulation.waiting.first { $0.jobId == background.id }?.reasons.map(\.code) ?? []
            #expect(reasons.contains("battery_below"))
            #expect(reasons.contains("metered"))
            #expect(reasons.contains("not_before"))
            #expect(simulation.world.power.source == "simulated")
            #expect(try await client.job(background.id).state == .queued, "simulate changes nothing")
            _ = daemon
        }
    }
}
