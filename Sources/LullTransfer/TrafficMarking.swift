import Logging
import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// How a class's connections yield to other traffic, set on each connection as it opens:
/// DSCP Lower Effort (RFC 8622) in the IP header, and a TCP congestion control of its own such
/// as TCP-LP (`lp`), which backs off as soon as other flows queue. Where the kernel refuses one
/// (a module absent, an algorithm an unprivileged daemon may not pick), the transfer carries on
/// unmarked and the daemon says so once.
public struct TrafficMarking: Sendable, Hashable {
    /// DSCP LE (`000001`): the IPv4 TOS / IPv6 traffic class byte is the DSCP shifted left by two.
    public var lowerEffort: Bool
    /// A name from /proc/sys/net/ipv4/tcp_available_congestion_control (or a module to load).
    public var congestion: String?

    public init(lowerEffort: Bool = false, congestion: String? = nil) {
        self.lowerEffort = lowerEffort
        self.congestion = congestion
    }

    public static let none = TrafficMarking()

    static let lowerEffortByte: CInt = 1 << 2
    /// Linux's TCP_CA_NAME_MAX, the terminating NUL included.
    static let congestionNameMax = 16

    /// Whether `name` can name a congestion control (Linux: at most 15 bytes).
    public static func isValidCongestionName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count < congestionNameMax
            && name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
    }

    /// Marks `channel` (a connection AsyncHTTPClient just opened); never fails it.
    func apply(to channel: any Channel, refusals: MarkingRefusals) -> EventLoopFuture<Void> {
        guard self != .none, let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededVoidFuture()
        }
        var steps: [EventLoopFuture<Void>] = []
        if lowerEffort {
            let v6 = channel.localAddress?.protocol == .inet6
            let set =
                v6
                ? provider.unsafeSetSocketOption(
                    level: .init(rawValue: CInt(IPPROTO_IPV6)),
                    name: .init(rawValue: CInt(IPV6_TCLASS)),
                    value: Self.lowerEffortByte
                )
                : provider.unsafeSetSocketOption(
                    level: .init(rawValue: CInt(IPPROTO_IP)),
                    name: .init(rawValue: CInt(IP_TOS)),
                    value: Self.lowerEffortByte
                )
            steps.append(set.recover { refusals.report("dscp", "DSCP LE", $0) })
        }
        if let congestion {
            let set = provider.unsafeSetSocketOption(
                level: .init(rawValue: CInt(IPPROTO_TCP)),
                name: .init(rawValue: CInt(TCP_CONGESTION)),
                value: CongestionName(congestion)
            )
            steps.append(
                set.recover { refusals.report("tcp_congestion", "TCP congestion control \"\(congestion)\"", $0) }
            )
        }
        return EventLoopFuture.andAllSucceed(steps, on: channel.eventLoop)
    }
}

/// A congestion control's name as `setsockopt(TCP_CONGESTION)` reads it: NUL-terminated bytes.
struct CongestionName: Sendable {
    var bytes: (UInt64, UInt64) = (0, 0)

    init(_ name: String) {
        withUnsafeMutableBytes(of: &bytes) { raw in
            for (index, byte) in name.utf8.prefix(TrafficMarking.congestionNameMax - 1).enumerated() {
                raw[index] = byte
            }
        }
    }
}

/// Says once per setting that the kernel refused a marking; the transfers go on unmarked.
public final class MarkingRefusals: Sendable {
    private let logger: Logger?
    private let reported = Mutex<Set<String>>([])

    public init(logger: Logger?) { self.logger = logger }

    func report(_ key: String, _ what: String, _ error: any Error) {
        let first = reported.withLock { $0.insert(key).inserted }
        guard first else { return }
        logger?.warning(
            "the kernel refused \(what) on a transfer's connection: \(error); transfers of classes that set \(key) go on without it (for tcp_congestion: is the module loaded, e.g. modprobe tcp_lp, and allowed in /proc/sys/net/ipv4/tcp_allowed_congestion_control?)",
            metadata: ["key": "\(key)", "error": "\(error)"]
        )
    }

    /// The settings refused so far (for tests and `status`).
    public var refused: Set<String> { reported.withLock { $0 } }
}
