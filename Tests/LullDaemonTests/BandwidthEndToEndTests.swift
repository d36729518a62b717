import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// Bandwidth limits against the real daemon over its socket and a loopback server: a job's own
/// limit, a class's shared by two jobs, an upload's, a reload's effect on a running job.
@Suite struct BandwidthEndToEndTests {
    static let mib = 1 << 20

    /// Seconds from `start` until job `id` succeeded or failed, and the job then. Events carry
    /// whole seconds only, so the test's own clock times the run; the job starts as soon as it
    /// is submitted.
    static func timed(
        _ id: Int64,
        from start: ContinuousClock.Instant,
        client: LullClient
    ) async throws -> (JobView, Double) {
        let done = try await awaitJob(id, in: [.succeeded, .failed], client: client)
        return (done, (ContinuousClock.now - start) / .seconds(1))
    }

    /// 5 (a): 16 MiB at 2 MiB/s, set with `lullctl submit --max-rate 2M`, takes 8 s ± 10%.
    @Test func aJobsOwnLimitPacesItsDownload() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        let content = TestHTTPServer.bytes(count: 16 * Self.mib, seed: 5)
        server.serve("/sixteen.bin", content)
        try await withDaemon { daemon, client in
            let destination = daemon.directory.appendingPathComponent("sixteen.bin").path
            let start = ContinuousClock.now
            let submitted = try CommandRunner.run(
                DaemonProcess.binary("lullctl"),
                [
                    "submit", "fetch", server.url("/sixteen.bin"), "-o", destination, "--max-rate", "2M", "--json",
                    "--socket", daemon.socketPath,
                ]
            )
            #expect(submitted.status == 0, "\(submitted.stderr)")
            let job = try WireJSON.decoder().decode(JobView.self, from: Data(submitted.stdout.utf8))
            #expect(job.maxBytesPerSecond == 2 * Int64(Self.mib))
            let (done, seconds) = try await Self.timed(job.id, from: start, client: client)
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            #expect(done.result?.sha256 == TestHTTPServer.sha256(content))
            print("bandwidth: 16 MiB at 2 MiB/s took \(seconds) s")
            #expect(abs(seconds - 8) <= 0.8, "16 MiB at 2 MiB/s took \(seconds) s")
            let shown = try CommandRunner.run(
                DaemonProcess.binary("lullctl"),
                ["show", String(job.id), "--socket", daemon.socketPath]
            )
            #expect(
                shown.stdout.contains("rate limit") && shown.stdout.contains("2.0 MiB/s (2097152 bytes per second)"),
                "\(shown.stdout)"
            )
        }
    }

    /// 5 (b): two jobs of a class limited to 2 MiB/s share it: while both transfer, each gets
    /// half, within 10%. Measured from their stored progress over the time both were part-way and
    /// moving, so that one starting later than the other under load, or waiting a moment on its
    /// server (the other having the whole limit meanwhile, as it should), does not count as unfair.
    @Test func jobsSharingAClassLimitGetEvenShares() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        let size = Int64(8 * Self.mib)
        server.serve("/one.bin", TestHTTPServer.bytes(count: Int(size), seed: 1))
        server.serve("/two.bin", TestHTTPServer.bytes(count: Int(size), seed: 2))
        let config = """
            [transfers]
            progress_interval = 0.1

            [classes.bulk]
            max_concurrent = 2
            max_bytes_per_second = 2097152
            """
        try await withDaemon(config: config) { daemon, client in
            let start = ContinuousClock.now
            let jobs = try await client.submit(
                batch: ["one", "two"].map { name in
                    JobSubmission(
                        kind: .fetch,
                        url: server.url("/\(name).bin"),
                        destination: daemon.directory.appendingPathComponent("\(name).bin").path,
                        jobClass: "bulk"
                    )
                }
            )
            // Both jobs' stored bytes, every 0.2 s until both have ended (bounded: 60 s).
            var both: [(at: ContinuousClock.Instant, bytes: [Int64])] = []
            var views: [JobView] = []
            for _ in 0..<300 {
                views = [try await client.job(jobs[0].id), try await client.job(jobs[1].id)]
                if views.allSatisfy({ [.succeeded, .failed].contains($0.state) }) { break }
                let bytes = views.map { $0.state == .running ? $0.progress?.bytesDone ?? 0 : 0 }
                if bytes.allSatisfy({ $0 > 0 && $0 < size }) { both.append((.now, bytes)) }
                try await Task.sleep(for: .milliseconds(200))
            }
            let elapsed = (ContinuousClock.now - start) / .seconds(1)
            for view in views { #expect(view.state == .succeeded, "\(String(describing: view.error))") }
            let first = try #require(both.first, "the two jobs were never part-way at once")
            let last = try #require(both.last)
            let window = (last.at - first.at) / .seconds(1)
            let together = zip(last.bytes, first.bytes).map { Double($0 - $1) / window / Double(Self.mib) }
            // The shares are counted over the samples in which both moved: while one transfer
            // waits on its server the other may take the whole limit, which is the limiter's
            // intent, not unfairness. What moved while only one did is bounded, so a limiter that
            // starves one job now and then still fails; samples in which neither moved say nothing.
            let steps = zip(both, both.dropFirst()).map { zip($1.bytes, $0.bytes).map { $0 - $1 } }
                .filter { $0.contains { $0 > 0 } }
            let moving = steps.filter { $0.allSatisfy { $0 > 0 } }
            let shares = [0, 1].map { job in Double(moving.reduce(0) { $0 + $1[job] }) }
            let alone = steps.filter { !$0.allSatisfy { $0 > 0 } }.reduce(0) { $0 + $1.reduce(0, +) }
            let all = steps.reduce(0) { $0 + $1.reduce(0, +) }
            print(
                "bandwidth: two jobs under a 2 MiB/s class limit: \(together) MiB/s over \(window) s together;"
                    + " shares \(shares) bytes over the \(moving.count) of \(steps.count) samples in which both moved,"
                    + " \(alone) of \(all) bytes moved while only one did"
            )
            #expect(window >= 4, "both were part-way for only \(window) s")
            #expect(alone * 5 <= all, "\(alone) of \(all) bytes moved while only one job did")
            // Each sample's bytes of both jobs go with a failure: whether one lagged all along
            // or in bursts is what tells a limiter's fault from a transfer's.
            #expect((shares.min() ?? 0) >= (shares.max() ?? 0) * 0.9, "shares \(shares); by sample \(steps)")
            #expect(together.reduce(0, +) <= 2.2, "together \(together) MiB/s under a 2 MiB/s limit")
            // Together they kept to the class's limit: 16 MiB at 2 MiB/s.
            #expect(elapsed >= 7.2, "16 MiB in \(elapsed) s")
        }
    }

    /// 5 (c): an upload is limited too: 8 MiB sent at 2 MiB/s take 4 s ± 10%.
    @Test func anUploadIsPacedToo() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/put", .init(body: [], uploadStatus: 201))
        try await withDaemon { daemon, client in
            let content = TestHTTPServer.bytes(count: 8 * Self.mib, seed: 8)
            let source = daemon.directory.appendingPathComponent("eight.bin").path
            try Data(content).write(to: URL(fileURLWithPath: source))
            let start = ContinuousClock.now
            let job = try await client.submit(
                JobSubmission(
                    kind: .upload,
                    url: server.url("/put"),
                    source: source,
                    maxBytesPerSecond: 2 * Int64(Self.mib)
                )
            )
            let (done, seconds) = try await Self.timed(job.id, from: start, client: client)
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            #expect(server.requests.last?.bodySHA256 == TestHTTPServer.sha256(content))
            print("bandwidth: an 8 MiB upload at 2 MiB/s took \(seconds) s")
            #expect(abs(seconds - 4) <= 0.4, "8 MiB up at 2 MiB/s took \(seconds) s")
        }
    }

    /// A reload that lifts the daemon's limit frees a running download at once.
    @Test func aReloadAppliesToARunningJob() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.serve("/big.bin", TestHTTPServer.bytes(count: 16 * Self.mib, seed: 3))
        let limited = "[limits]\nmax_bytes_per_second = 262144\n\n" + fastRetries
        try await withDaemon(config: limited) { daemon, client in
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/big.bin"),
                    destination: daemon.directory.appendingPathComponent("big.bin").path
                )
            )
            // At 256 KiB/s the file would take a minute; it is seen moving at that pace first.
            try await awaitEvent(client: client, "the first half MiB") {
                $0.jobId == job.id && ($0.progress?.bytesDone ?? 0) >= 1 << 19
            }
            #expect(try await client.job(job.id).state == .running)
            let reloadedAt = ContinuousClock.now
            var text = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
            text = text.replacingOccurrences(
                of: "max_bytes_per_second = 262144",
                with: "max_bytes_per_second = 1073741824"
            )
            try text.write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
            _ = try await client.reload()
            let (done, seconds) = try await Self.timed(job.id, from: reloadedAt, client: client)
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            // More than 15 MiB were left: at the old limit another minute.
            print("bandwidth: the rest of 16 MiB after lifting a 256 KiB/s limit took \(seconds) s")
            #expect(seconds < 5)
        }
    }
}
