import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A network namespace of the test's own with a veth pair inside it (`inside` carries the
/// default route via `peer`, 10.200.7.2). Addresses never leave the namespace. Needs root and
/// iproute2; `tearDown` removes everything whatever happened.
public final class NetworkNamespace: Sendable {
    public let name: String
    /// Carries the default route; taking it down takes the namespace offline.
    public let inside: String
    /// The other end; its address is reachable from inside while the link is up.
    public let peer: String
    public let peerAddress = "10.200.7.2"
    private let ipPath: String

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static var ipCommand: String? {
        ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Root and iproute2: what creating namespaces takes.
    public static var isAvailable: Bool { getuid() == 0 && ipCommand != nil }

    public init() throws {
        guard let command = Self.ipCommand, getuid() == 0 else {
            throw Failure(description: "network namespaces need root and iproute2 (make test installs iproute2)")
        }
        let tag = String(UInt32.random(in: 0...0xffff), radix: 16)
        ipPath = command
        name = "lull-test-\(getpid())-\(tag)"
        inside = "lv\(tag)a"
        peer = "lv\(tag)b"
        do {
            try ip(["netns", "add", name])
            // No IPv6 inside: its DAD and router solicitations would add events of their own.
            try? ip(["netns", "exec", name, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1"])
            try? ip(["netns", "exec", name, "sysctl", "-q", "-w", "net.ipv6.conf.default.disable_ipv6=1"])
            try ip(["-n", name, "link", "set", "lo", "up"])
            try ip(["-n", name, "link", "add", inside, "type", "veth", "peer", "name", peer])
            try ip(["-n", name, "addr", "add", "10.200.7.1/24", "dev", inside])
            try ip(["-n", name, "addr", "add", "\(peerAddress)/24", "dev", peer])
            try ip(["-n", name, "link", "set", peer, "up"])
        } catch {
            tearDown()
            throw error
        }
    }

    /// `/run/netns/NAME`, for `setns`.
    public var path: String { "/run/netns/\(name)" }

    /// Runs `ip ARGUMENTS`; throws with its output when it fails.
    public func ip(_ arguments: [String]) throws {
        let result = try CommandRunner.run(ipPath, arguments)
        guard result.status == 0 else {
            throw Failure(
                description: "ip \(arguments.joined(separator: " ")) failed: \(result.stdout)\(result.stderr)"
            )
        }
    }

    /// The link up with a default route: online.
    public func up() throws {
        try ip(["-n", name, "link", "set", inside, "up"])
        try ip(["-n", name, "route", "replace", "default", "via", peerAddress, "dev", inside])
    }

    /// The link down: no usable default route, offline.
    public func down() throws {
        try ip(["-n", name, "link", "set", inside, "down"])
    }

    /// A command prefix that runs a program inside the namespace.
    public var launcher: [String] { [ipPath, "netns", "exec", name] }

    /// Serves the files of `directory` over HTTP from inside the namespace, on the peer's
    /// address and `port`; returns once a request inside the namespace gets an answer. Stop it
    /// with `FileServer.stop`.
    public func serveFiles(from directory: String, port: Int) throws -> FileServer {
        let url = "http://\(peerAddress):\(port)/"
        let process = try ServerLaunch.start(
            "python3 -m http.server in \(name)",
            executable: ipPath,
            arguments: [
                "netns", "exec", name,
                // Debian's python directly: a version-manager shim in between would fork,
                // and the server would outlive the kill.
                "/usr/bin/python3", "-m", "http.server", String(port), "--bind", peerAddress,
                "--directory", directory,
            ],
            timeout: .seconds(15),
            readiness: "answer \(url)"
        ) {
            try CommandRunner.run(
                ipPath,
                ["netns", "exec", name, "curl", "-s", "--max-time", "2", "-o", "/dev/null", url]
            ).status == 0
        }
        return FileServer(process: process, baseURL: url)
    }

    /// A file server started by `serveFiles`.
    public struct FileServer: Sendable {
        let process: Process
        /// `http://PEER:PORT/`
        public let baseURL: String

        public func stop() { ServerLaunch.kill(process) }
    }

    public func tearDown() {
        _ = try? CommandRunner.run(ipPath, ["netns", "del", name])
    }
}
