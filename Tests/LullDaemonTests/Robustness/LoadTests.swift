import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Synchronization
import Testing

/// Many clients at once: 100 submitting as fast as they can and 20 following the event stream,
/// for 10 s (60 s with `LULL_LONG_TESTS=1`). No request may fail, every follower must see every
/// acknowledged submission, and the submit latency percentiles are recorded.
@Suite(.serialized) struct LoadTests {
    @Test func hundredSubmittersAndTwentyFollowers() async throws {
        let submitters = 100
        let followers = 20
        let duration = TestScale.pick(quick: Duration.seconds(10), long: .seconds(60))
        try await withDaemon(config: holdEverything) { daemon, client in
            let start = try await latestSeq(client)
            let latencies = Shared<[Duration]>([])
            let errors = Shared<[String]>([])
            let acknowledged = Shared<Set<Int64>>([])

            // Followers first, each on its own connection, from the current end of the log.
            let seen = Shared<[Int: Set<Int64>]>([:])
            let followerClients = (0..<followers).map { _ in
                LullClient(socketPath: daemon.socketPath, timeout: .seconds(600))
            }
            let following = Task {
                await withTaskGroup(of: Void.self) { group in
                    for (index, follower) in followerClients.enumerated() {
                        group.addTask {
                            do {
                                // A cancellation is the end marker: it comes after every submission.
                                for try await event in follower.followEvents(after: start) {
                                    if event.type == .cancelled { return }
                                    _ = seen.withLock { $0[index, default: []].insert(event.jobId) }
                                }
                            } catch {
                                if !Task.isCancelled { errors.withLock { $0.append("follower \(index): \(error)") } }
                            }
                        }
                    }
                }
            }

            let clients = (0..<submitters).map { _ in LullClient(socketPath: daemon.socketPath) }
            let deadline = ContinuousClock.now + duration
            await withTaskGroup(of: Void.self) { group in
                for (index, submitter) in clients.enumerated() {
                    group.addTask {
                        var n = 0
                        while ContinuousClock.now < deadline {
                            n += 1
                            let began = ContinuousClock.now
                            do {
                                let job = try await submitter.submit(
                                    JobSubmission(
                                        kind: .fetch,
                                        url: "http://127.0.0.1:9/c\(index)/\(n)",
                                        destination: "/tmp/lull-load-\(index)-\(n)",
                                        label: "load"
                                    )
                                )
                                let took = ContinuousClock.now - began
                                latencies.withLock { $0.append(took) }
                                acknowledged.withLock { _ = $0.insert(job.id) }
                            } catch {
                                errors.withLock { $0.append("submitter \(index): \(error)") }
                            }
                        }
                    }
                }
            }
            let ids = acknowledged.withLock { $0 }

            // The end marker, then every follower must reach it (bounded).
            let marker = try #require(ids.max())
            _ = try await client.cancel(marker)
            let finished = Task {
                try await Task.sleep(for: .seconds(60))
                following.cancel()
            }
            await following.value
            finished.cancel()
            for follower in followerClients { await follower.shutdown() }
            for submitter in clients { await submitter.shutdown() }

            let summary = LatencySummary(latencies.withLock { $0 })
            let rate = Double(ids.count) / Double(duration.components.seconds)
            let status = try await client.status()
            print(
                """
                robustness: load: \(submitters) submitters + \(followers) followers for \(duration): \(ids.count) jobs \
                (\(Int(rate))/s), submit latency \(summary), errors \(errors.withLock { $0.count }), \
                daemon RSS \(status.process.rssBytes >> 20) MiB
                """
            )
            #expect(errors.withLock { $0 }.isEmpty, "\(errors.withLock { $0.prefix(5) })")
            let lagging = seen.withLock { seen in (0..<followers).filter { !ids.isSubset(of: seen[$0] ?? []) } }
            #expect(lagging.isEmpty, "followers missing submissions: \(lagging)")
            #expect(status.jobs["queued"] == ids.count - 1)
        }
    }

    /// 30 minutes of steady mixed work (long form only): the daemon's memory must stay flat once
    /// warmed up. Jobs complete (pushes and small fetches against a local server), so a growing
    /// queue is not mistaken for a leak.
    @Test(.enabled(if: TestScale.isLong, "the 30-minute soak runs with LULL_LONG_TESTS=1"))
    func aThirtyMinuteSoakKeepsMemoryFlat() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/hook", .init())
        let small = TestHTTPServer.bytes(count: 64 << 10, seed: 5)
        server.route("/small", .init(body: small, etag: "\"s\""))
        let total = Duration.seconds(
            Int64(ProcessInfo.processInfo.environment["LULL_SOAK_SECONDS"].flatMap(Int64.init) ?? 1800)
        )
        let warmUp = total / 6
        try await withDaemon(config: fastRetries) { daemon, client in
            let began = ContinuousClock.now
            var samples: [(Duration, Int64)] = []
            var submitted = 0
            var nextSample = began
            while ContinuousClock.now - began < total {
                var batch: [JobSubmission] = []
                for n in 0..<20 {
                    submitted += 1
                    batch.append(
                        n % 2 == 0
                            ? JobSubmission(
                                kind: .push,
                                url: server.url("/hook"),
                                body: "soak \(submitted)",
                                label: "soak"
                            )
                            : JobSubmission(
                                kind: .fetch,
                                url: server.url("/small"),
                                destination: daemon.directory.appendingPathComponent("soak-\(submitted % 50)").path,
                                label: "soak"
                            )
                    )
                }
                let jobs = try await client.submit(batch: batch)
                _ = try await awaitAllTerminal(Set(jobs.map(\.id)), client: client, timeout: .seconds(120))
                if ContinuousClock.now >= nextSample {
                    samples.append((ContinuousClock.now - began, try await client.status().process.rssBytes))
                    nextSample = ContinuousClock.now + .seconds(10)
                }
            }
            let after = samples.filter { $0.0 >= warmUp }.map(\.1)
            let first = try #require(after.first)
            let peak = after.max() ?? first
            let last = after.last ?? first
            print(
                "robustness: soak \(total): \(submitted) jobs, RSS after warm-up \(first >> 20) MiB, peak \(peak >> 20) MiB, end \(last >> 20) MiB"
            )
            #expect(Double(last) <= Double(first) * 1.25 + Double(8 << 20), "RSS grew from \(first) to \(last) bytes")
        }
    }
}
