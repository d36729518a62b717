import Foundation
import LullTestSupport
import Synchronization
import Testing

@testable import LullDaemon

/// A local user who opens connections by the hundred and never finishes a request: past its
/// cap each is answered `429 too_many_connections` at once, root and other users are served
/// meanwhile, and the daemon's descriptors come back when the flood ends.
@Suite(
    .enabled(
        if: getuid() == 0 && FileManager.default.fileExists(atPath: "/usr/bin/setpriv")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"),
        "needs root, setpriv and python3"
    )
)
struct ConnectionFloodTests {
    static let flood = PythonExample.repository.appendingPathComponent("Tests/Fixtures/connection_flood.py").path

    /// `executable arguments` run as `uid` (and its gid), with no supplementary groups.
    static func asUid(_ uid: Int, _ executable: String, _ arguments: [String]) -> [String] {
        ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--", executable] + arguments
    }

    static func lullctl(as uid: Int, _ arguments: [String]) throws -> CommandResult {
        try CommandRunner.run("/usr/bin/setpriv", asUid(uid, DaemonProcess.binary("lullctl"), arguments))
    }

    static func openDescriptors(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    /// What the flood script tallied once its connections had had `wait` seconds to be answered.
    struct Tally: Decodable {
        var held: Int
        var answers: [String: Int]
        var messages: [String: String]
        var slowestCloseSeconds: Double
    }

    /// Starts `count` half-sent requests as uid 65534 and returns the script, its tally, and the
    /// file whose creation ends the flood.
    static func startFlood(_ daemon: DaemonProcess, count: Int) throws -> (BackgroundCommand, Tally, String) {
        let release = daemon.directory.appendingPathComponent("release-\(UUID().uuidString.prefix(6))").path
        let script = try BackgroundCommand(
            "/usr/bin/setpriv",
            asUid(65534, "/usr/bin/python3", [flood, daemon.socketPath, String(count), release, "2", "25"]),
            in: daemon.directory
        )
        try script.waitForOutput("its tally") { $0.contains("\n") }
        let line = Data(script.stdout.split(separator: "\n")[0].utf8)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return (script, try decoder.decode(Tally.self, from: line), release)
    }

    static func end(_ flood: BackgroundCommand, release: String) throws {
        _ = FileManager.default.createFile(atPath: release, contents: nil)
        try flood.waitForOutput("released") { $0.contains("released") }
        flood.stop()
    }

    /// Waits (5 s at most) for the daemon's open descriptors to fall to `count`; returns the last reading.
    static func descriptors(of pid: Int32, fallingTo count: Int) -> Int {
        let deadline = ContinuousClock.now + .seconds(5)
        var now = openDescriptors(pid)
        while now > count && ContinuousClock.now < deadline {
            usleep(50_000)
            now = openDescriptors(pid)
        }
        return now
    }

    @Test func oneUidPastItsCapIsAnswered429AtOnceAndOthersAreServed() async throws {
        let config = holdEverything + "\nmax_connections_per_uid = 16\n\n[daemon]\nsocket_mode = \"0666\"\n"
        try await withDaemon(config: config) { daemon, client in
            _ = try await client.status()
            let before = Self.openDescriptors(daemon.pid)
            let (flood, tally, release) = try Self.startFlood(daemon, count: 200)
            defer { try? Self.end(flood, release: release) }

            #expect(tally.held == 16, "the cap's worth of connections is held: \(tally)")
            #expect(tally.answers == ["429 too_many_connections": 184], "every other one is refused: \(tally)")
            let message = tally.messages["429 too_many_connections"] ?? ""
            #expect(message.contains("16") && message.contains("limits.max_connections_per_uid"), "\(message)")
            #expect(tally.slowestCloseSeconds < 1, "refused at accept, not after a read timeout: \(tally)")
            let during = Self.openDescriptors(daemon.pid)
            #expect(
                during >= before + 16 && during < before + 16 + 8,
                "only the held connections cost descriptors: \(before) → \(during)"
            )

            // While the flood holds: root, another uid, and the flooding uid's own lullctl.
            let rootStatus = try await withTimeout(.seconds(2), "root's status during the flood") {
                try await client.status()
            }
            #expect(rootStatus.pid == daemon.pid)
            let start = ContinuousClock.now
            let other = try Self.lullctl(as: 65533, ["status", "--socket", daemon.socketPath, "--call-timeout", "2"])
            #expect(other.status == 0, "another uid is served: \(other.stderr)")
            #expect(ContinuousClock.now - start < .seconds(2))
            let flooder = try Self.lullctl(as: 65534, ["status", "--socket", daemon.socketPath, "--call-timeout", "2"])
            #expect(flooder.status == 7, "the flooding uid is told, with the exit code of a full quota")
            #expect(flooder.stderr.contains("limits.max_connections_per_uid"), "\(flooder.stderr)")

            try Self.end(flood, release: release)
            let after = Self.descriptors(of: daemon.pid, fallingTo: before)
            #expect(
                after <= before,
                "the flood's descriptors are closed once it ends: \(before) → \(during) → \(after)"
            )
            let again = try Self.lullctl(as: 65534, ["status", "--socket", daemon.socketPath, "--call-timeout", "2"])
            #expect(again.status == 0, "the uid is served again: \(again.stderr)")
        }
    }

    @Test func allNonRootUidsTogetherAreCappedAndRootIsStillServed() async throws {
        let config = holdEverything + "\nmax_connections = 8\n\n[daemon]\nsocket_mode = \"0666\"\n"
        try await withDaemon(config: config) { daemon, client in
            let (flood, tally, release) = try Self.startFlood(daemon, count: 40)
            defer { try? Self.end(flood, release: release) }
            #expect(tally.held == 8 && tally.answers == ["429 too_many_connections": 32], "\(tally)")

            let other = try Self.lullctl(as: 65533, ["status", "--socket", daemon.socketPath, "--call-timeout", "2"])
            #expect(other.status == 7, "another uid meets the total cap: \(other.stderr)")
            #expect(
                other.stderr.contains("limits.max_connections,") && other.stderr.contains("8 connections"),
                "\(other.stderr)"
            )
            let rootStatus = try await withTimeout(.seconds(2), "root's status during the flood") {
                try await client.status()
            }
            #expect(rootStatus.pid == daemon.pid, "root is never counted")

            try Self.end(flood, release: release)
            // The daemon sees the closes as they come: room again within a bounded wait.
            var again = try Self.lullctl(as: 65533, ["status", "--socket", daemon.socketPath, "--call-timeout", "2"])
            let deadline = ContinuousClock.now + .seconds(5)
            while again.status != 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                again = try Self.lullctl(as: 65533, ["status", "--socket", daemon.socketPath, "--call-timeout", "2"])
            }
            #expect(again.status == 0, "room again once the flood ends: \(again.stderr)")
        }
    }
}

/// `lullctl` against a socket that accepts and never answers gives up by its own timeout, and
/// says so.
struct CallTimeoutTests {
    static let silent = PythonExample.repository.appendingPathComponent("Tests/Fixtures/silent_socket.py").path

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs python3"))
    func lullctlGivesUpOnADaemonThatDoesNotAnswer() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-silent-\(UUID().uuidString.prefix(8))"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("lull.sock").path
        let server = try BackgroundCommand("/usr/bin/python3", [Self.silent, socket, "20"], in: directory)
        defer { server.stop() }
        try server.waitForOutput("listening") { $0.contains("listening") }

        for arguments in [
            ["status", "--socket", socket, "--call-timeout", "1"], ["--call-timeout", "1", "--socket", socket, "list"],
        ] {
            let start = ContinuousClock.now
            let result = try CommandRunner.run(DaemonProcess.binary("lullctl"), arguments)
            let elapsed = ContinuousClock.now - start
            #expect(result.status == 3, "\(arguments): \(result.stderr)")
            #expect(elapsed >= .milliseconds(900) && elapsed < .seconds(5), "\(arguments) gave up after \(elapsed)")
            #expect(
                result.stderr.contains("lulld at \(socket) accepted the connection but did not answer within 1 s"),
                "\(result.stderr)"
            )
            #expect(result.stderr.contains("systemctl --user status lulld"), "\(result.stderr)")
        }
    }
}

/// The counting behind the caps, without sockets.
struct ConnectionLimitTests {
    @Test func nonRootConnectionsTakeAtMostHalfTheDescriptors() {
        #expect(ConnectionLimit.caps(perUid: 128, nonRoot: 1024, descriptorLimit: 1024).nonRoot == 512)
        #expect(ConnectionLimit.caps(perUid: 128, nonRoot: 1024, descriptorLimit: 524_288).nonRoot == 1024)
    }

    @Test func rootIsNeverRefusedAndAClosedConnectionGivesItsPlaceBack() {
        let limit = ConnectionLimit(.init(perUid: 2, nonRoot: 3))
        #expect(limit.opened(by: 1000) == nil && limit.opened(by: 1000) == nil)
        let refused = limit.opened(by: 1000)
        #expect(refused?.first == true, "the first refusal is logged")
        #expect(limit.opened(by: 1000)?.first == false, "later ones are not")
        #expect(limit.opened(by: 1001) == nil)
        if case .nonRoot(3)? = limit.opened(by: 1002)?.cap {} else { Issue.record("the total cap refuses a third uid") }
        for _ in 0..<100 { #expect(limit.opened(by: 0) == nil) }
        limit.closed(by: 1000, admitted: true)
        #expect(limit.opened(by: 1002) == nil, "a closed connection's place is free again")
    }

    @Test func memoryIsGivenBackOnceTheConnectionsFallWellBelowTheirPeak() {
        let trims = Mutex(0)
        let limit = ConnectionLimit(.init(perUid: 1000, nonRoot: 1000)) { trims.withLock { $0 += 1 } }
        for _ in 0..<(ConnectionLimit.trimPeak - 1) { _ = limit.opened(by: 1000) }
        for _ in 0..<(ConnectionLimit.trimPeak - 1) { limit.closed(by: 1000, admitted: true) }
        #expect(trims.withLock { $0 } == 0, "a peak below trimPeak is ordinary use")
        for _ in 0..<200 { _ = limit.opened(by: 1000) }
        for _ in 0..<174 { limit.closed(by: 1000, admitted: true) }
        #expect(trims.withLock { $0 } == 0, "26 of a peak of 200 is more than an eighth")
        limit.closed(by: 1000, admitted: true)
        #expect(trims.withLock { $0 } == 1, "25 is an eighth")
        for _ in 0..<25 { limit.closed(by: 1000, admitted: true) }
        #expect(trims.withLock { $0 } == 1, "the peak starts again from the trim; 25 is below trimPeak")
    }
}
