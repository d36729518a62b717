import Foundation
import LullCore
import LullTestSupport
import Testing

@testable import LullSensors

@Suite("rtnetlink network source", .serialized, .timeLimit(.minutes(1)))
struct NetlinkNetworkTests {
    @Test(
        "in a private netns: link down → offline, up with a default route → online, event-driven",
        .enabled(if: NetworkNamespace.isAvailable, "needs root and iproute2")
    )
    func namespaceVeth() async throws {
        let namespace = try NetworkNamespace()
        defer { namespace.tearDown() }
        try await withTemporaryDirectory { sys in
            // /sys/class/net is per mount, not per thread; the source reads a fixture for the
            // interface in our namespace: the real veth plus a uevent that calls it a modem.
            writeTree(
                sys,
                [
                    "\(namespace.inside)/uevent": "DEVTYPE=wwan\nINTERFACE=\(namespace.inside)\n",
                    "\(namespace.inside)/type": "1\n",
                ]
            )
            let source = NetlinkNetworkSource(sysClassNet: sys, namespacePath: namespace.path)
            try await source.start()
            defer { Task { await source.stop() } }
            #expect(source.current.state.connectivity == .offline)
            #expect(source.current.state.source == "rtnetlink (no default route)")

            var changes = source.changes()
            var start = ContinuousClock.now
            try namespace.up()
            let (online, upLatency) = try await firstValue(changes, "online", since: start) {
                $0.state.connectivity == .online
            }
            #expect(online.state.interface == namespace.inside)
            #expect(online.link == .cellular, "DEVTYPE=wwan")
            #expect(online.state.cellular && online.state.metered, "cellular is guessed metered")

            changes = source.changes()
            start = ContinuousClock.now
            try namespace.down()
            let (offline, downLatency) = try await firstValue(changes, "offline", since: start) {
                $0.state.connectivity == .offline
            }
            #expect(offline.link == .unknown)

            // Quiet network, no timer: the listener thread does not wake at all.
            let wakeUps = source.wakeUps
            try await Task.sleep(for: .milliseconds(400))
            #expect(source.wakeUps == wakeUps, "no wake-ups without netlink traffic")

            changes = source.changes()
            start = ContinuousClock.now
            try namespace.up()
            let (again, againLatency) = try await firstValue(changes, "online again", since: start) {
                $0.state.connectivity == .online
            }
            #expect(again.state.interface == namespace.inside)
            print(
                "rtnetlink latency (ip command → stream), ms: up \(milliseconds(upLatency)), down \(milliseconds(downLatency)), up again \(milliseconds(againLatency)); wake-ups \(source.wakeUps)"
            )
            await source.stop()
        }
    }

    @Test(
        "carrier loss on the peer (link up, no carrier) is offline",
        .enabled(if: NetworkNamespace.isAvailable, "needs root and iproute2")
    )
    func carrierLoss() async throws {
        let namespace = try NetworkNamespace()
        defer { namespace.tearDown() }
        try await withTemporaryDirectory { sys in
            let source = NetlinkNetworkSource(
                overrides: NetworkOverrides(meteredInterfaces: ["lv*"]),
                sysClassNet: sys,
                namespacePath: namespace.path
            )
            try await source.start()
            var changes = source.changes()
            try namespace.up()
            let (online, _) = try await firstValue(changes, "online") { $0.state.connectivity == .online }
            #expect(online.link == .ethernet, "a veth is an ethernet link")
            #expect(online.state.metered && !online.state.cellular, "metered by admin declaration only")
            #expect(online.state.source.contains("admin declaration"))

            changes = source.changes()
            try namespace.ip(["-n", namespace.name, "link", "set", namespace.peer, "down"])
            let (offline, _) = try await firstValue(changes, "offline on carrier loss") {
                $0.state.connectivity == .offline
            }
            #expect(offline.state.source.contains("link down") || offline.state.source.contains("no default route"))
            await source.stop()
        }
    }

    @Test("a namespace that does not exist fails start()")
    func missingNamespace() async {
        let source = NetlinkNetworkSource(namespacePath: "/run/netns/lull-test-does-not-exist")
        await #expect(throws: SensorError.self) { try await source.start() }
    }

    @Test("default route choice and classification (pure)")
    func decision() async {
        await withTemporaryDirectory { sys in
            writeTree(
                sys,
                [
                    "wlan0/wireless/.keep": "", "wlan0/type": "1\n", "ppp0/type": "512\n",
                    "wwan0/uevent": "DEVTYPE=wwan\nINTERFACE=wwan0\n", "eth0/type": "1\n",
                ]
            )
            let up = UInt32(IFF_UP) | UInt32(IFF_RUNNING)
            let links: [Int32: NetlinkNetworkSource.Link] = [
                2: .init(index: 2, name: "eth0", flags: UInt32(IFF_UP), hardwareType: 1),  // no carrier
                3: .init(index: 3, name: "wlan0", flags: up, hardwareType: 1),
                4: .init(index: 4, name: "wwan0", flags: up, hardwareType: 65534),
                5: .init(index: 5, name: "ppp0", flags: up, hardwareType: 512),
                6: .init(index: 6, name: "wg0", flags: up, hardwareType: 65534),
            ]
            func reading(_ routes: [NetlinkNetworkSource.DefaultRoute]) -> NetworkReading {
                NetlinkNetworkSource.reading(links: links, defaultRoutes: routes, sysClassNet: sys)
            }
            let v4 = UInt8(AF_INET)
            let v6 = UInt8(AF_INET6)
            #expect(reading([]).state.connectivity == .offline)
            // eth0 has the best metric but no carrier: wlan0 carries the traffic.
            let wifi = reading([
                .init(family: v4, outputInterface: 2, priority: 100),
                .init(family: v4, outputInterface: 3, priority: 600),
            ])
            #expect(
                wifi.state.connectivity == .online && wifi.link == .wifi && wifi.state.interface == "wlan0"
                    && !wifi.state.metered
            )
            #expect(
                reading([.init(family: v4, outputInterface: 2, priority: 100)]).state
                    == NetworkState(connectivity: .offline, interface: "eth0", source: "rtnetlink eth0 (link down)")
            )
            #expect(reading([.init(family: v6, outputInterface: 4)]).link == .cellular)
            #expect(reading([.init(family: v4, outputInterface: 5)]).state.cellular, "PPP counts as cellular")
            #expect(reading([.init(family: v4, outputInterface: 6)]).link == .other)
            // RTNH_F_LINKDOWN routes are skipped.
            #expect(reading([.init(family: v4, outputInterface: 3, linkDown: true)]).state.connectivity == .offline)
            // Overrides add cellular/metered by glob.
            let declared = NetworkOverrides(meteredInterfaces: ["usb*"], cellularInterfaces: ["wl*"])
                .apply(to: wifi)
            #expect(declared.state.cellular && declared.state.metered && declared.link == .cellular)
        }
    }
}
