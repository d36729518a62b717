import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// A class's `dscp` and `tcp_congestion` on the transfer's real socket, read back with `ss`;
/// and a congestion control the kernel refuses, said once while the transfers go on.
@Suite struct TrafficMarkingTests {
    static let body = TestHTTPServer.bytes(count: 4 << 20, seed: 9)

    @Test func aClassMarksItsConnectionsLowerEffort() async throws {
        let available =
            (try? String(contentsOfFile: "/proc/sys/net/ipv4/tcp_available_congestion_control", encoding: .utf8)) ?? ""
        let algorithm = try #require(available.split(separator: " ").first { $0.hasPrefix("reno") }.map(String.init))
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/slow", .init(body: Self.body, faults: [.drip(bytes: 64 << 10, every: .milliseconds(50))]))
        let config = "[classes.utility]\ndscp = \"LE\"\ntcp_congestion = \"\(algorithm)\"\n"
        try await withDaemon(config: config) { daemon, client in
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/slow"),
                    destination: daemon.directory.appendingPathComponent("slow").path,
                    jobClass: "utility"
                )
            )
            try await awaitBytes(job.id, atLeast: 64 << 10, client: client)
            let sockets = try CommandRunner.run(
                "/usr/bin/env",
                ["ss", "-tin", "--tos", "dst", "127.0.0.1:\(server.port)"]
            )
            #expect(sockets.stdout.contains("tos:0x4"), "DSCP LE is TOS 0x04:\n\(sockets.stdout)")
            #expect(sockets.stdout.contains(" \(algorithm) "), "\(sockets.stdout)")
            #expect(try await awaitJob(job.id, in: [.succeeded, .failed], client: client).state == .succeeded)
        }
    }

    @Test func aCongestionControlTheKernelRefusesIsSaidOnceAndTransfersGoOn() async throws {
        let available =
            (try? String(contentsOfFile: "/proc/sys/net/ipv4/tcp_available_congestion_control", encoding: .utf8)) ?? ""
        let missing = "nosuchcc"
        #expect(!available.contains(missing))
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.serve("/file", Self.body)
        let config = "[classes.utility]\ntcp_congestion = \"\(missing)\"\n"
        try await withDaemon(config: config) { daemon, client in
            var ids: [Int64] = []
            for index in 0..<3 {
                let job = try await client.submit(
                    JobSubmission(
                        kind: .fetch,
                        url: server.url("/file"),
                        destination: daemon.directory.appendingPathComponent("f\(index)").path,
                        jobClass: "utility"
                    )
                )
                ids.append(job.id)
            }
            for id in ids {
                #expect(try await awaitJob(id, in: [.succeeded, .failed], client: client).state == .succeeded)
            }
            let said = daemon.log().components(separatedBy: "\n").filter {
                $0.contains("the kernel refused TCP congestion control")
            }
            #expect(said.count == 1, "\(said)")
            #expect(daemon.log().contains("warning: this kernel offers no TCP congestion control \"\(missing)\""))
        }
        // --check-config flags it, and exits 0: it is a warning.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("lull-cc-\(getpid()).toml")
        try config.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let check = try CommandRunner.run(DaemonProcess.binary("lulld"), ["--check-config", "--config", file.path])
        #expect(check.status == 0)
        #expect(
            check.stderr.contains(
                "classes.utility.tcp_congestion: warning: this kernel offers no TCP congestion control"
            ),
            "\(check.stderr)"
        )
    }
}
