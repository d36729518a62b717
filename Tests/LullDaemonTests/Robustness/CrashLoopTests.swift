import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Synchronization
import Testing

/// A mixed workload (fetches, pushes, raw and tus uploads against local servers) while lulld is
/// `kill -9`ed at random moments and restarted: 25 kills in the quick form, 200 with
/// `LULL_LONG_TESTS=1`. `LULL_TEST_SEED` replays a run.
@Suite(.serialized) struct CrashLoopTests {
    static let config = """
        [limits]
        max_concurrent = 6
        max_per_host = 6

        [retry]
        base_seconds = 0.05
        cap_seconds = 0.5
        max_attempts = 100

        [transfers]
        checkpoint_interval = 0.1
        progress_interval = 0.1
        """

    /// One submission and what its outcome must look like.
    struct Plan: Sendable {
        var label: String
        var submission: JobSubmission
        /// fetch: the served content's hash; upload: the source's hash.
        var expectedSHA256: String?
        /// The path on the test server (push and raw upload).
        var serverPath: String?
    }

    struct Acknowledged: Sendable {
        var id: Int64
        var plan: Plan
    }

    @Test func aMixedWorkloadSurvivesKill9AtRandomMoments() async throws {
        let kills = TestScale.pick(quick: 25, long: 200)
        let seed = TestScale.seed()
        var random = SeededGenerator(seed: seed)
        print("crash loop: \(kills) kills, seed \(seed) (LULL_TEST_SEED=\(seed) replays the schedule)")
        let began = ContinuousClock.now

        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        var served: [(path: String, sha256: String)] = []
        for (index, size) in [256 << 10, 2 << 20, 8 << 20, 24 << 20, 40 << 20].enumerated() {
            let bytes = TestHTTPServer.bytes(count: size, seed: UInt64(100 + index))
            server.route("/file\(index)", .init(body: bytes, etag: "\"file\(index)\""))
            served.append(("/file\(index)", TestHTTPServer.sha256(bytes)))
        }

        let daemon = try DaemonProcess(config: Self.config)
        defer { daemon.remove() }
        let fetched = daemon.directory.appendingPathComponent("fetched").path
        let sourceDirectory = daemon.directory.appendingPathComponent("sources").path
        try FileManager.default.createDirectory(atPath: fetched, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: sourceDirectory, withIntermediateDirectories: true)
        var sources: [(path: String, sha256: String)] = []
        for (index, size) in [512 << 10, 2 << 20, 6 << 20].enumerated() {
            let bytes = TestHTTPServer.bytes(count: size, seed: UInt64(200 + index))
            let path = "\(sourceDirectory)/source\(index).bin"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            sources.append((path, TestHTTPServer.sha256(bytes)))
        }
        let tus =
            TusServerProcess.isAvailable
            ? try TusServerProcess(
                script: TusInteropTests.script,
                filesDirectory: daemon.directory.appendingPathComponent("tus").path
            )
            : nil
        try tus?.start()
        defer { tus?.kill() }

        var next = 0
        func plan(_ random: inout SeededGenerator) -> Plan {
            next += 1
            let label = "crash-\(next)"
            let roll = Int.random(in: 0..<100, using: &random)
            if roll < 45 {
                let file = served[Int.random(in: 0..<served.count, using: &random)]
                let verify = Bool.random(using: &random)
                return Plan(
                    label: label,
                    submission: JobSubmission(
                        kind: .fetch,
                        url: server.url(file.path),
                        destination: "\(fetched)/\(label).bin",
                        label: label,
                        sha256: verify ? file.sha256 : nil
                    ),
                    expectedSHA256: file.sha256
                )
            }
            if roll < 70 {
                let path = "/push/\(label)"
                // A third of the pushes are refused once, so they are retried with their key.
                server.route(path, .init(faults: Int.random(in: 0..<3, using: &random) == 0 ? [.status(503)] : []))
                return Plan(
                    label: label,
                    submission: JobSubmission(
                        kind: .push,
                        url: server.url(path),
                        contentType: "application/json",
                        body: #"{"n":\#(next)}"#,
                        label: label
                    ),
                    serverPath: path
                )
            }
            let source = sources[Int.random(in: 0..<sources.count, using: &random)]
            if roll < 85 || tus == nil {
                let path = "/up/\(label)"
                server.route(path, .init())
                return Plan(
                    label: label,
                    submission: JobSubmission(kind: .upload, url: server.url(path), source: source.path, label: label),
                    expectedSHA256: source.sha256,
                    serverPath: path
                )
            }
            return Plan(
                label: label,
                submission: JobSubmission(
                    kind: .upload,
                    url: tus!.endpoint,
                    source: source.path,
                    label: label,
                    uploadProtocol: .tus
                ),
                expectedSHA256: source.sha256
            )
        }

        let acknowledged = Shared<[Acknowledged]>([])
        let rejected = Shared<[String]>([])
        var expectedAt: [String: String] = [:]  // fetch destination name → content hash
        var verified = Set<String>()
        var partials: [String] = []
        var destinationChecks = 0
        try daemon.start()
        for round in 0..<kills {
            let plans = (0..<Int.random(in: 2...6, using: &random)).map { _ in plan(&random) }
            for plan in plans where plan.submission.kind == .fetch {
                expectedAt["\(plan.label).bin"] = plan.expectedSHA256
            }
            let client = LullClient(socketPath: daemon.socketPath)
            let submitter = Task {
                for plan in plans {
                    do {
                        let job = try await client.submit(plan.submission)
                        acknowledged.withLock { $0.append(Acknowledged(id: job.id, plan: plan)) }
                    } catch LullClientError.api(let status, let detail) {
                        rejected.withLock { $0.append("\(plan.label): \(status) \(detail.code) \(detail.message)") }
                    } catch {
                        return  // the daemon died under the request: not acknowledged
                    }
                }
            }
            // The crash moment: anywhere from mid-submission to well into the transfers.
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...1200, using: &random)))
            daemon.kill()
            _ = await submitter.result
            await client.shutdown()

            // No destination may ever hold a partial file: whatever exists is complete.
            for name in try FileManager.default.contentsOfDirectory(atPath: fetched)
            where !name.hasPrefix(".") && !verified.contains(name) {
                destinationChecks += 1
                let sha = fileSHA256("\(fetched)/\(name)")
                if sha == expectedAt[name] {
                    verified.insert(name)
                } else {
                    partials.append("after kill \(round + 1): \(name) has \(sha ?? "nothing")")
                }
            }
            let integrity = try await storeIntegrity(daemon)
            #expect(integrity == "ok", "store after kill \(round + 1): \(integrity)")
            try daemon.start()
        }

        let client = LullClient(socketPath: daemon.socketPath)
        defer { Task { await client.shutdown() } }
        let acks = acknowledged.withLock { $0 }
        #expect(rejected.withLock { $0 }.isEmpty, "valid submissions were refused: \(rejected.withLock { $0 })")
        let ended = try await awaitAllTerminal(
            Set(acks.map(\.id)),
            client: client,
            timeout: TestScale.pick(quick: .seconds(240), long: .seconds(900))
        )

        // Every acknowledged job exists exactly once, under the id it was acknowledged with.
        let everything = try await client.allJobs()
        var byLabel: [String: [JobView]] = [:]
        for job in everything { byLabel[job.label ?? "", default: []].append(job) }
        #expect(byLabel.values.allSatisfy { $0.count == 1 }, "a submission was stored twice")
        for ack in acks {
            #expect(byLabel[ack.plan.label]?.map(\.id) == [ack.id], "\(ack.plan.label) acknowledged as \(ack.id)")
        }

        var attempts = 0
        for ack in acks {
            guard let job = ended[ack.id] else {
                Issue.record("acknowledged job \(ack.id) (\(ack.plan.label)) is missing")
                continue
            }
            attempts += job.attempts
            #expect(
                job.state == .succeeded,
                "\(ack.plan.label) \(job.kind.rawValue): \(job.state.rawValue) \(String(describing: job.error))"
            )
            switch ack.plan.submission.kind {
            case .fetch:
                let destination = try #require(ack.plan.submission.destination)
                #expect(fileSHA256(destination) == ack.plan.expectedSHA256, "\(ack.plan.label): the file on disk")
                #expect(job.result?.sha256 == ack.plan.expectedSHA256, "\(ack.plan.label): the recorded hash")
            case .push:
                let requests = server.requests.filter { $0.uri == ack.plan.serverPath }
                let keys = Set(requests.map { $0.header("idempotency-key") ?? "none" })
                #expect(
                    !requests.isEmpty && keys.count == 1,
                    "\(ack.plan.label): \(requests.count) attempts with keys \(keys)"
                )
            case .upload where ack.plan.submission.uploadProtocol == .tus:
                let uploadURL = try #require(job.result?.uploadURL, "\(ack.plan.label) has no upload URL")
                #expect(
                    fileSHA256(tus!.storedFile(for: uploadURL)) == ack.plan.expectedSHA256,
                    "\(ack.plan.label): tus stored file"
                )
            case .upload:
                let last = server.requests.last { $0.uri == ack.plan.serverPath }
                #expect(last?.bodySHA256 == ack.plan.expectedSHA256, "\(ack.plan.label): the last upload's body")
            case .run:
                break  // the plan submits transfers only
            }
        }
        #expect(partials.isEmpty, "partial destinations: \(partials)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: fetched).filter { $0.hasSuffix(".part") }
        #expect(leftovers.isEmpty, "staging files left behind: \(leftovers)")
        var interrupted = 0
        var cursor: Int64 = 0
        while true {
            let page = try await client.events(after: cursor, limit: 1000)
            if page.events.isEmpty { break }
            interrupted += page.events.filter { $0.type == .requeued }.count
            cursor = page.lastSeq
        }
        #expect(daemon.stop() == 0)
        #expect(try await storeIntegrity(daemon) == "ok")

        let kinds = Dictionary(
            grouping: acks,
            by: { $0.plan.submission.uploadProtocol == .tus ? "tus" : $0.plan.submission.kind.rawValue }
        )
        .map { "\($0.key)=\($0.value.count)" }.sorted().joined(separator: " ")
        let pushAttempts = server.requests.filter { $0.uri.hasPrefix("/push/") }.count
        print(
            """
            robustness: crash loop: \(kills) kill -9s, seed \(seed), \(acks.count) acknowledged jobs (\(kinds)), \
            \(everything.count) stored, \(attempts) attempts, \(interrupted) transfers interrupted by a kill, \(pushAttempts) push requests, \
            \(destinationChecks) destination checks at kill points, \(partials.count) partial, \
            integrity ok after every kill, \(ContinuousClock.now - began)
            """
        )
    }
}
