import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Kernel uevents for one subsystem, from a `NETLINK_KOBJECT_UEVENT` socket read on a
/// dedicated thread. A burst of uevents (a battery driver reports several attributes at once)
/// is delivered as one call.
public final class KernelUeventMonitor: DeviceEventSource {
    public let subsystem: String
    private let logger: Logger
    private let thread = Mutex<PollThread?>(nil)

    public init(subsystem: String, logger: Logger = Logger(label: "lull.sensors.uevent")) {
        self.subsystem = subsystem
        self.logger = logger
    }

    public func start(_ onEvent: @escaping @Sendable () -> Void) async throws {
        let socketBox = Mutex<NetlinkSocket?>(nil)
        let subsystem = self.subsystem
        let started = try await PollThread.start(
            name: "lull-uevent-\(subsystem)",
            setUp: {
                let socket = try NetlinkSocket(
                    protocol: NetlinkConstants.ueventProtocol,
                    groups: NetlinkConstants.ueventKernelGroup
                )
                socketBox.withLock { $0 = socket }
                return socket.fd
            },
            onReadable: {
                guard let socket = socketBox.withLock({ $0 }) else { return }
                var buffer = [UInt8](repeating: 0, count: 8192)
                var overrun = false
                var relevant = false
                while let n = socket.receive(&buffer, overrun: &overrun) {
                    if Self.uevent(buffer[0..<n], concerns: subsystem) { relevant = true }
                }
                // Lost messages may have been ours: re-reading costs little.
                if relevant || overrun { onEvent() }
            },
            tearDown: {
                socketBox.withLock {
                    $0?.close()
                    $0 = nil
                }
            }
        )
        thread.withLock { $0 = started }
        logger.debug("listening for uevents", metadata: ["subsystem": "\(subsystem)"])
    }

    public func stop() async {
        let running = thread.withLock { thread -> PollThread? in
            defer { thread = nil }
            return thread
        }
        await running?.stop()
    }

    /// A kernel uevent is `ACTION@DEVPATH\0KEY=VALUE\0...`.
    static func uevent(_ bytes: ArraySlice<UInt8>, concerns subsystem: String) -> Bool {
        parse(bytes)?["SUBSYSTEM"] == subsystem
    }

    static func parse(_ bytes: ArraySlice<UInt8>) -> [String: String]? {
        let fields = bytes.split(separator: 0, omittingEmptySubsequences: true).map {
            String(decoding: $0, as: UTF8.self)
        }
        guard let header = fields.first, header.contains("@") else { return nil }  // not a kernel uevent (e.g. libudev)
        var result: [String: String] = [:]
        for field in fields.dropFirst() {
            guard let eq = field.firstIndex(of: "=") else { continue }
            result[String(field[..<eq])] = String(field[field.index(after: eq)...])
        }
        return result
    }
}
