import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A small filesystem (an 8 MiB tmpfs) as the state directory, filled to the last byte while
/// jobs run. Needs root to mount; without it the suite says so and is skipped.
/// Whether this process may mount a tmpfs (root, and allowed to by its container).
enum TmpfsMount {
    static let isPossible: Bool = {
        guard getuid() == 0 else { return false }
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("lull-tmpfs-probe-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard (try? CommandRunner.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe]).status) == 0
        else { return false }
        _ = try? CommandRunner.run("/bin/umount", [probe])
        return true
    }()
}

@Suite(.serialized, .enabled(if: TmpfsMount.isPossible, "needs root (mount -t tmpfs) for the full-disk tests"))
struct FullDiskTests {
    /// Writes 64 KiB blocks until the filesystem refuses; returns how much it took.
    static func fill(_ path: String) -> Int {
        guard
            let handle = FileHandle(forWritingAtPath: path)
                ?? {
                    _ = FileManager.default.createFile(atPath: path, contents: nil)
                    return FileHandle(forWritingAtPath: path)
                }()
        else { return 0 }
        defer { try? handle.close() }
        let block = Data(repeating: 0x5A, count: 64 << 10)
        var written = 0
        while (try? handle.write(contentsOf: block)) != nil, written < 64 << 20 { written += block.count }
        // Fill the last partial block too, a byte at a time in bigger steps first.
        for size in [4096, 512, 1] {
            let piece = Data(repeating: 0x5A, count: size)
            while (try? handle.write(contentsOf: piece)) != nil { written += size }
        }
        return written
    }

    /// A download larger than the space left where it goes fails before a byte is written,
    /// saying how much it needs and how much is free (read as the attempt opened its file).
    @Test func aFetchLargerThanTheSpaceLeftSaysSoBeforeWriting() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/big", .init(body: TestHTTPServer.bytes(count: 4 << 20, seed: 42)))
        try await withDaemon(config: fastRetries) { daemon, client in
            let directory = daemon.directory.appendingPathComponent("small").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let mounted = try CommandRunner.run("/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", directory])
            #expect(mounted.status == 0)
            defer { _ = try? CommandRunner.run("/bin/umount", [directory]) }
            let job = try await client.submit(
                JobSubmission(kind: .fetch, url: server.url("/big"), destination: directory + "/big.bin")
            )
            let refused = try await awaitEvent(client: client, "job \(job.id) to be refused for space") {
                $0.jobId == job.id && ($0.type == .retrying || $0.type == .failed)
            }
            #expect(refused.error?.code == "no_space")
            let message = refused.error?.message ?? ""
            #expect(message.contains("4194304 bytes needed in \(directory)"), "\(message)")
            #expect(message.contains("2097152 free"), "\(message)")
            // Its retries may have run out already: then there is nothing left to cancel.
            _ = try? await client.cancel(job.id)
        }
    }

    @Test func aFullStateDirectoryRefusesClearlyCorruptsNothingAndRecovers() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        let content = TestHTTPServer.bytes(count: 3 << 20, seed: 41)
        // 64 KiB every 20 ms: about 1 s of transfer, long enough to fill the disk under it.
        server.route(
            "/slow",
            .init(body: content, etag: "\"s1\"", faults: [.drip(bytes: 64 << 10, every: .milliseconds(20))])
        )
        let daemon = try DaemonProcess(config: fastRetries)
        try FileManager.default.createDirectory(atPath: daemon.stateDirectory, withIntermediateDirectories: true)
        let mounted = try CommandRunner.run(
            "/bin/mount",
            ["-t", "tmpfs", "-o", "size=8m,mode=0700", "tmpfs", daemon.stateDirectory]
        )
        try #require(mounted.status == 0, "mount: \(mounted.stderr)")
        defer {
            daemon.stop()
            _ = try? CommandRunner.run("/bin/umount", ["-l", daemon.stateDirectory])
            daemon.remove()
        }
        try daemon.start()
        let client = LullClient(socketPath: daemon.socketPath)
        defer { Task { await client.shutdown() } }

        // Work already stored before the disk fills: held until tomorrow.
        let later = Date().addingTimeInterval(86_400)
        var held: [Int64] = []
        for n in 0..<40 {
            held.append(
                try await client.submit(
                    JobSubmission(
                        kind: .fetch,
                        url: "http://127.0.0.1:9/held/\(n)",
                        destination: "/tmp/lull-held-\(n)",
                        label: "held",
                        notBefore: later
                    )
                ).id
            )
        }
        // A fetch running into a destination on another filesystem: the disk fills while it runs.
        let destination = daemon.directory.appendingPathComponent("running.bin").path
        let running = try await client.submit(
            JobSubmission(
                kind: .fetch,
                url: server.url("/slow"),
                destination: destination,
                label: "running",
                sha256: TestHTTPServer.sha256(content)
            )
        )
        _ = try await awaitJob(running.id, in: [.running], client: client)

        let filler = daemon.stateDirectory + "/filler"
        let filled = Self.fill(filler)
        print("robustness: full disk: filled the 8 MiB state tmpfs with \(filled) bytes")

        // Submissions now fail with a clear "no space" answer, and the daemon keeps answering reads.
        let (status, body) = try curl(
            daemon.socketPath,
            "POST",
            "/v1/jobs",
            body: Data(#"{"kind":"push","url":"http://127.0.0.1:9/x","body":"x"}"#.utf8)
        )
        #expect(status == 507, "a submission on a full disk answered \(status): \(body)")
        let error = try apiError(body)
        #expect(error.code == "no_space")
        #expect(error.message.contains("free space"), "\(error.message)")
        #expect(try await client.status().jobs["queued"] == 40)
        await #expect(throws: LullClientError.self) { _ = try await client.cancel(held[0]) }

        // The running fetch gets its bytes; it cannot be recorded as done until there is space.
        try await waitUntil("the server sent the whole file", timeout: .seconds(30)) {
            server.bytesSent("/slow") >= content.count
        }

        let waitedForSpace = daemon.log().contains("trying again until the store can write")
        print(
            "robustness: full disk: the running fetch's outcome \(waitedForSpace ? "waited for space to be recorded" : "was recorded without waiting")"
        )

        // Space comes back: everything recovers without a restart.
        try FileManager.default.removeItem(atPath: filler)
        let done = try await awaitJob(running.id, in: [.succeeded, .failed], client: client, timeout: .seconds(60))
        #expect(done.state == .succeeded, "the running fetch: \(done.state.rawValue) \(String(describing: done.error))")
        #expect(fileSHA256(destination) == TestHTTPServer.sha256(content))
        let after = try await client.submit(
            JobSubmission(kind: .push, url: "http://127.0.0.1:9/x", body: "x", label: "after")
        )
        #expect(after.state == .queued || after.state == .running)
        #expect(try await client.cancel(held[0]).state == .cancelled)
        let stillHeld = try await client.allJobs(label: "held")
        #expect(stillHeld.count == 40)
        #expect(stillHeld.dropFirst().allSatisfy { $0.state == .queued })
        #expect(daemon.stop() == 0)
        #expect(try await storeIntegrity(daemon) == "ok")
        print(
            "robustness: full disk: 507 no_space while full, 40 stored jobs intact, running fetch \(done.state.rawValue) after space returned, integrity ok"
        )
    }
}
