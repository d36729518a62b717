import Logging
import LullCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Connectivity without NetworkManager: rtnetlink link, address and route events (read on a
/// dedicated thread, no timer) and, after each burst of events, a fresh dump of links and
/// default routes. Online means a default route (main table, IPv4 or IPv6) through a link that
/// is up and has carrier; the link is classified from `/sys/class/net/<if>` (wireless →
/// wifi, `DEVTYPE=wwan` or PPP → cellular) and the netlink link type. Cellular links are
/// guessed metered, as NetworkManager does for modems. Admin declarations apply on top.
public final class NetlinkNetworkSource: NetworkSource {
    public let overrides: NetworkOverrides
    public let sysClassNet: String
    /// A network namespace file (`/run/netns/NAME`) to watch instead of the daemon's own.
    public let namespacePath: String?
    private let logger: Logger
    private let broadcaster = StateBroadcaster(NetworkReading.unknown)
    private let thread = Mutex<PollThread?>(nil)
    private let eventCount = Atomic<Int>(0)

    public init(
        overrides: NetworkOverrides = .init(),
        sysClassNet: String = "/sys/class/net",
        namespacePath: String? = nil,
        logger: Logger = Logger(label: "lull.sensors.network")
    ) {
        self.overrides = overrides
        self.sysClassNet = sysClassNet
        self.namespacePath = namespacePath
        self.logger = logger
    }

    public var current: NetworkReading { broadcaster.current }
    public func changes() -> AsyncStream<NetworkReading> { broadcaster.changes() }
    public func values() -> AsyncStream<NetworkReading> { broadcaster.values() }

    /// How many times the listener thread woke for netlink traffic (each wake-up is one
    /// burst of events followed by one dump). Zero on a quiet network: there is no timer.
    public var wakeUps: Int { eventCount.load(ordering: .relaxed) }

    public func start() async throws {
        let sockets = Mutex<(events: NetlinkSocket, requests: NetlinkSocket)?>(nil)
        let namespacePath = self.namespacePath
        let started = try await PollThread.start(
            name: "lull-rtnetlink",
            setUp: { [self] in
                // The thread is ours for good, so it can live in another namespace.
                if let namespacePath { try enterNetworkNamespace(namespacePath) }
                let groups =
                    NetlinkConstants.groupLink | NetlinkConstants.groupIPv4Address | NetlinkConstants.groupIPv4Route
                    | NetlinkConstants.groupIPv6Address | NetlinkConstants.groupIPv6Route
                let events = try NetlinkSocket(protocol: NetlinkConstants.routeProtocol, groups: groups)
                let requests: NetlinkSocket
                do {
                    requests = try NetlinkSocket(protocol: NetlinkConstants.routeProtocol, groups: 0)
                } catch {
                    events.close()
                    throw error
                }
                sockets.withLock { $0 = (events, requests) }
                // Subscribed first, then dumped: nothing can fall between the two.
                refresh(requests)
                return events.fd
            },
            onReadable: { [self] in
                guard let (events, requests) = sockets.withLock({ $0 }) else { return }
                var buffer = [UInt8](repeating: 0, count: 32768)
                var overrun = false
                while events.receive(&buffer, overrun: &overrun) != nil {}
                eventCount.add(1, ordering: .relaxed)
                refresh(requests)
            },
            tearDown: {
                sockets.withLock { pair in
                    pair?.events.close()
                    pair?.requests.close()
                    pair = nil
                }
            }
        )
        thread.withLock { $0 = started }
    }

    public func stop() async {
        let running = thread.withLock { t -> PollThread? in
            defer { t = nil }
            return t
        }
        await running?.stop()
        broadcaster.finish()
    }

    private func refresh(_ requests: NetlinkSocket) {
        guard let links = RtnetlinkDump.links(requests),
            let v4 = RtnetlinkDump.defaultRoutes(requests, family: UInt8(AF_INET)),
            let v6 = RtnetlinkDump.defaultRoutes(requests, family: UInt8(AF_INET6))
        else {
            logger.warning("rtnetlink dump failed; keeping the last network state")
            return
        }
        let reading = overrides.apply(to: Self.reading(links: links, defaultRoutes: v4 + v6, sysClassNet: sysClassNet))
        if broadcaster.update(reading) {
            logger.debug(
                "network changed",
                metadata: [
                    "connectivity": "\(reading.state.connectivity)",
                    "source": "\(reading.state.source)",
                ]
            )
        }
    }

    // MARK: decision (pure)

    public struct Link: Sendable, Equatable {
        public var index: Int32
        public var name: String
        public var flags: UInt32
        /// ARPHRD_* (1 ethernet, 512 PPP, 65534 none/raw-ip, 772 loopback).
        public var hardwareType: UInt16

        public init(index: Int32, name: String, flags: UInt32, hardwareType: UInt16) {
            self.index = index
            self.name = name
            self.flags = flags
            self.hardwareType = hardwareType
        }

        /// Administratively up and with carrier (IFF_UP and IFF_RUNNING).
        public var isUp: Bool { flags & UInt32(IFF_UP) != 0 && flags & UInt32(IFF_RUNNING) != 0 }
    }

    public struct DefaultRoute: Sendable, Equatable {
        public var family: UInt8
        public var outputInterface: Int32
        public var priority: UInt32
        /// RTNH_F_LINKDOWN: the kernel marks the route dead because its link lost carrier.
        public var linkDown: Bool

        public init(family: UInt8, outputInterface: Int32, priority: UInt32 = 0, linkDown: Bool = false) {
            self.family = family
            self.outputInterface = outputInterface
            self.priority = priority
            self.linkDown = linkDown
        }
    }

    static func reading(links: [Int32: Link], defaultRoutes: [DefaultRoute], sysClassNet: String) -> NetworkReading {
        let ordered = defaultRoutes.sorted {
            ($0.priority, $0.family == UInt8(AF_INET) ? 0 : 1) < ($1.priority, $1.family == UInt8(AF_INET) ? 0 : 1)
        }
        let usable = ordered.first { route in !route.linkDown && links[route.outputInterface]?.isUp == true }
        guard let route = usable, let link = links[route.outputInterface] else {
            let downLink = ordered.lazy.compactMap { links[$0.outputInterface] }.first
            let source = downLink.map { "rtnetlink \($0.name) (link down)" } ?? "rtnetlink (no default route)"
            return NetworkReading(
                state: NetworkState(connectivity: .offline, interface: downLink?.name, source: source),
                link: .unknown
            )
        }
        let type = classify(link, sysClassNet: sysClassNet)
        let cellular = type == .cellular
        let state = NetworkState(
            connectivity: .online,
            metered: cellular,
            cellular: cellular,
            interface: link.name,
            source: "rtnetlink \(link.name) (default route, \(type.rawValue))"
        )
        return NetworkReading(state: state, link: type)
    }

    /// wifi when the device has a `wireless` or `phy80211` entry; cellular for `DEVTYPE=wwan`
    /// (qmi_wwan, cdc_mbim, …) or a PPP link (pppd over a modem; type 512); ethernet for an
    /// ethernet link type; otherwise other (VPN, tunnel, bridge to nowhere known).
    static func classify(_ link: Link, sysClassNet: String) -> LinkType {
        let dir = SysFiles.join(sysClassNet, link.name)
        if SysFiles.exists(SysFiles.join(dir, "wireless")) || SysFiles.exists(SysFiles.join(dir, "phy80211")) {
            return .wifi
        }
        if let uevent = SysFiles.read(SysFiles.join(dir, "uevent")) {
            let devtype = SysFiles.keyValues(uevent)["DEVTYPE"]
            if devtype == "wwan" { return .cellular }
            if devtype == "wlan" { return .wifi }
        }
        let hardwareType =
            SysFiles.readInt(SysFiles.join(dir, "type")).map { UInt16(truncatingIfNeeded: $0) } ?? link.hardwareType
        switch hardwareType {
        case 512: return .cellular  // ARPHRD_PPP
        case 1: return .ethernet  // ARPHRD_ETHER
        default: return .other
        }
    }
}

/// rtnetlink dumps over a request socket (links; default routes of one family).
enum RtnetlinkDump {
    private static let sequence = Atomic<UInt32>(1)

    static func links(_ socket: NetlinkSocket) -> [Int32: NetlinkNetworkSource.Link]? {
        // struct ifinfomsg (16 bytes), family AF_UNSPEC
        guard let messages = dump(socket, type: NetlinkConstants.getLink, body: [UInt8](repeating: 0, count: 16)) else {
            return nil
        }
        var links: [Int32: NetlinkNetworkSource.Link] = [:]
        for message in messages where message.type == NetlinkConstants.newLink && message.payload.count >= 16 {
            let p = message.payload
            let base = p.startIndex
            let index = p.loadInt32(at: base + 4)
            var name = ""
            for attribute in NetlinkMessage.attributes(p[(base + 16)...]) where attribute.type == 3 {  // IFLA_IFNAME
                name = attribute.value.cString
            }
            links[index] = .init(
                index: index,
                name: name,
                flags: p.loadUInt32(at: base + 8),
                hardwareType: p.loadUInt16(at: base + 2)
            )
        }
        return links
    }

    static func defaultRoutes(_ socket: NetlinkSocket, family: UInt8) -> [NetlinkNetworkSource.DefaultRoute]? {
        // struct rtmsg (12 bytes)
        var body = [UInt8](repeating: 0, count: 12)
        body[0] = family
        guard let messages = dump(socket, type: NetlinkConstants.getRoute, body: body) else { return nil }
        var routes: [NetlinkNetworkSource.DefaultRoute] = []
        for message in messages where message.type == NetlinkConstants.newRoute && message.payload.count >= 12 {
            let p = message.payload
            let base = p.startIndex
            let dstLength = p[base + 1]
            var table = UInt32(p[base + 4])
            let routeType = p[base + 7]
            var flags = p.loadUInt32(at: base + 8)
            guard dstLength == 0, routeType == 1 /* RTN_UNICAST */ else { continue }
            var oif: Int32? = nil
            var priority: UInt32 = 0
            for attribute in NetlinkMessage.attributes(p[(base + 12)...]) {
                switch attribute.type {
                case 4 where attribute.value.count >= 4:
                    oif = attribute.value.loadInt32(at: attribute.value.startIndex)  // RTA_OIF
                case 6 where attribute.value.count >= 4:
                    priority = attribute.value.loadUInt32(at: attribute.value.startIndex)  // RTA_PRIORITY
                case 15 where attribute.value.count >= 4:
                    table = attribute.value.loadUInt32(at: attribute.value.startIndex)  // RTA_TABLE
                case 9 where attribute.value.count >= 8:  // RTA_MULTIPATH: first struct rtnexthop
                    let v = attribute.value
                    if oif == nil { oif = v.loadInt32(at: v.startIndex + 4) }
                    flags |= UInt32(v[v.startIndex + 2])
                default: break
                }
            }
            guard table == 254 /* RT_TABLE_MAIN */, let oif else { continue }
            routes.append(.init(family: family, outputInterface: oif, priority: priority, linkDown: flags & 0x10 != 0))
        }
        return routes
    }

    /// Sends a dump request and collects the answer up to NLMSG_DONE (waiting at most 2 s).
    private static func dump(_ socket: NetlinkSocket, type: UInt16, body: [UInt8]) -> [NetlinkMessage]? {
        let seq = sequence.add(1, ordering: .relaxed).newValue
        guard socket.send(NetlinkMessage.request(type: type, sequence: seq, body: body)) else { return nil }
        var collected: [NetlinkMessage] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            var fds = [pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 1, 2000)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0, fds[0].revents & Int16(POLLNVAL | POLLHUP) == 0 else { return nil }
            var overrun = false
            guard let n = socket.receive(&buffer, overrun: &overrun) else { continue }
            for message in NetlinkMessage.parse(buffer[0..<n]) where message.sequence == seq {
                switch message.type {
                case NetlinkConstants.done: return collected
                case NetlinkConstants.error: return nil
                default: collected.append(message)
                }
            }
        }
    }
}
