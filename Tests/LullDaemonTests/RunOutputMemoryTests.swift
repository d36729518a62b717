import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `GET /v1/jobs/{id}/output` sends a log as the client reads it: clients that ask for a large
/// log and read slowly cost lulld a chunk each, not the log. Read whole, six answers of a
/// 32 MiB log held at least 192 MiB in lulld before their first byte left.
@Suite struct RunOutputMemoryTests {
    @Test func slowReadersOfALargeLogCostTheDaemonAChunkEach() async throws {
        try await withDaemon { daemon, client in
            let job = try await client.submit(
                JobSubmission(kind: .run, url: "", argv: ["true"], workingDirectory: "/tmp")
            )
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded)
            // Every byte value, so a body that passed through text would differ.
            let size = 32 << 20
            let log = [UInt8]((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 16) })
            let directory = daemon.stateDirectory + "/run-logs"
            try FileManager.default.createDirectory(
                atPath: directory,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
            let path = directory + "/\(job.id).log"
            #expect(
                FileManager.default.createFile(
                    atPath: path,
                    contents: Data(log),
                    attributes: [.posixPermissions: 0o600]
                )
            )

            let idle = allocatedBytes(of: daemon.pid)
            var readers: [UnixSocketConnection] = []
            defer { for reader in readers { reader.close() } }
            for _ in 0..<6 {
                let reader = try UnixSocketConnection(path: daemon.socketPath)
                readers.append(reader)
                reader.send("GET /v1/jobs/\(job.id)/output HTTP/1.1\r\nHost: lull\r\n\r\n")
            }
            // Each answer has begun, so lulld has done whatever it does before the first byte.
            for reader in readers {
                let start = reader.receiveSome(timeout: .seconds(30))
                #expect(
                    UnixSocketConnection.status(of: start) == 200,
                    "\(String(decoding: start.prefix(200), as: UTF8.self))"
                )
            }
            let growth = allocatedBytes(of: daemon.pid) - idle
            print(
                "run output: lulld allocated memory grew \(growth >> 10) KiB with 6 slow readers of a \(size >> 20) MiB log"
            )
            #expect(growth < 24 << 20, "lulld grew by \(growth >> 20) MiB")
            for reader in readers { reader.close() }
            readers = []

            // curl, a client we did not write, reads the streamed answer whole.
            let copy = daemon.directory.appendingPathComponent("curl-copy").path
            let fetched = try CommandRunner.run(
                "/usr/bin/curl",
                [
                    "-sS", "--fail", "--unix-socket", daemon.socketPath, "-o", copy,
                    "http://lull/v1/jobs/\(job.id)/output",
                ]
            )
            #expect(fetched.status == 0, "\(fetched.stderr)")
            #expect(FileManager.default.contents(atPath: copy) == Data(log))
            // The bytes as they are, whole and from an offset, with the log's size.
            #expect(try await client.output(job.id) == log)
            #expect(try await client.output(job.id, offset: Int64(size - 1000)) == Array(log.suffix(1000)))
            #expect(try await client.output(job.id, offset: Int64(size + 5)).isEmpty)
        }
    }
}
