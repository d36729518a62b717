import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import LullTransfer
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A run job measured while it runs and when it ends: its usage sampled into `progress` events,
/// storage I/O in its result, the `lull_run_*` metrics and the journal fields of its end.
@Suite(.timeLimit(.minutes(2)))
struct RunUsageTests {
    /// The kernel counts storage I/O per task, and the daemon's directory is on a file system
    /// whose writes reach a block device (tmpfs and overlay report none).
    static var storageIOIsCounted: Bool {
        guard FileManager.default.fileExists(atPath: "/proc/self/io"),
            let type = try? CommandRunner.run(
                "/usr/bin/stat",
                ["-f", "-c", "%T", FileManager.default.temporaryDirectory.path]
            ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        else { return false }
        return !["tmpfs", "overlayfs", "ramfs", ""].contains(type)
    }

    @Test func aBusyLoopsUsageIsSampledIntoProgressEvents() async throws {
        try await withDaemon(config: "[transfers]\nprogress_interval = 0.5\n") { daemon, client in
            let job = try await client.submit(
                JobSubmission(kind: .run, url: "", argv: ["sh", "-c", "while :; do :; done"])
            )
            // The first sample's share is from the attempt's start; the second's is over a whole interval.
            let sampled = try await awaitEvent(client: client, timeout: .seconds(20), "a sample near a whole CPU") {
                $0.jobId == job.id && $0.type == .progress && ($0.usage?.cpuPercent ?? 0) > 50
            }
            let usage = try #require(sampled.usage)
            #expect(usage.memoryBytes > 0 && usage.cpuSeconds > 0, "\(usage)")
            #expect(sampled.progress == nil, "a command moves no bytes")
            let view = try #require(try await client.job(job.id).usage, "the view has the last sample")
            #expect(view.cpuSeconds >= usage.cpuSeconds)
            let memory = try #require(try metric("lull_run_memory_bytes", on: daemon))
            #expect(memory > 0)

            // A cancelled command has no result; its last sample still counts in the metrics.
            _ = try await client.cancel(job.id)
            // The cancel is recorded before the attempt has wound down: wait for its end.
            try await withTimeout(.seconds(15), "the stopped command counted and gone") {
                while true {
                    let samples = try metrics(on: daemon)
                    let cpu = samples.first { $0.name == "lull_run_cpu_seconds_total" }?.value ?? 0
                    let memory = samples.first { $0.name == "lull_run_memory_bytes" }?.value
                    if cpu >= usage.cpuSeconds && memory == 0 { return }
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
        }
    }

    @Test(.enabled(if: storageIOIsCounted, "needs per-task I/O accounting and a disk-backed temporary directory"))
    func storageWritesAreCountedLiveAndInTheResultMetricsAndJournal() async throws {
        try await withDaemon(config: "[transfers]\nprogress_interval = 0.2\n") { daemon, client in
            let file = daemon.directory.appendingPathComponent("written").path
            let seen = daemon.directory.appendingPathComponent("sampled").path
            // O_DIRECT: the 8 MiB reach the disk now, not at a later write-back. The loop after
            // it gives the metrics some CPU; the command then waits until the test has seen a
            // sample after the write, 30 s at most (a fast machine ran the loop within one interval).
            let script =
                "dd if=/dev/zero of=\(file) bs=1M count=8 oflag=direct 2>/dev/null; i=0; "
                + "while [ $i -lt 300000 ]; do i=$((i+1)); done; "
                + "n=0; while [ ! -e \(seen) ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n+1)); done"
            let job = try await client.submit(
                JobSubmission(kind: .run, url: "", label: "io", jobClass: "default", argv: ["sh", "-c", script])
            )
            let live = try await awaitEvent(client: client, timeout: .seconds(30), "a sample after the write") {
                $0.jobId == job.id && ($0.usage?.ioWriteBytes ?? 0) >= 8 << 20
            }
            #expect(live.usage?.ioReadBytes != nil)
            #expect(FileManager.default.createFile(atPath: seen, contents: nil))

            let ended = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(ended.state == .succeeded, "\(String(describing: ended.error))")
            let result = try #require(ended.result)
            let written = try #require(result.ioWriteBytes)
            print("run I/O: io_write_bytes \(written), io_read_bytes \(result.ioReadBytes ?? -1)")
            #expect(written >= 8 << 20)
            #expect(result.ioReadBytes != nil)
            #expect((result.cpuSeconds ?? 0) > 0)

            let samples = try metrics(on: daemon)
            func value(_ name: String) -> Double? {
                samples.first { $0.name == name && $0.labels["class"] == "default" }?.value
            }
            #expect((value("lull_run_io_write_bytes_total") ?? 0) >= Double(8 << 20))
            #expect((value("lull_run_cpu_seconds_total") ?? 0) > 0)
            #expect(value("lull_run_io_read_bytes_total") != nil)

            let notice = try #require(
                daemon.log().split(separator: "\n").first { $0.contains("job \(job.id) (io) succeeded") },
                "the end's notice"
            )
            #expect(notice.contains("io_write_bytes=\(written)"), "\(notice)")
            #expect(notice.contains("cpu_seconds=") && notice.contains("memory_peak_bytes="), "\(notice)")
        }
    }

    /// One pass over /proc reads several groups: each its own members, none of the others'.
    @Test func onePassReadsEveryGroupAskedFor() throws {
        let busy = try Self.spawnGroup("while :; do :; done")
        let idle = try Self.spawnGroup("sleep 30 & sleep 30")
        defer {
            kill(-busy, SIGKILL)
            kill(-idle, SIGKILL)
            var status: Int32 = 0
            waitpid(busy, &status, 0)
            waitpid(idle, &status, 0)
        }
        var readings: [Int32: GroupUsage.Reading] = [:]
        let deadline = ContinuousClock.now + .seconds(10)
        // Until the busy loop has had a few ticks and the idle group's children exist.
        while ContinuousClock.now < deadline {
            readings = GroupUsage.read(groups: [busy, idle, 999_999_999])
            if (readings[busy]?.cpuSeconds ?? 0) > 0.05 && readings[idle]?.processes == 3 { break }
            usleep(20_000)
        }
        #expect(readings[busy]?.processes == 1)
        #expect(readings[idle]?.processes == 3, "sh and its two sleeps")
        #expect((readings[busy]?.cpuSeconds ?? 0) > 0.05)
        #expect((readings[idle]?.cpuSeconds ?? 1) < 0.05)
        #expect((readings[idle]?.memoryBytes ?? 0) > 0)
        #expect(readings[999_999_999] == nil, "a group with no process is left out")
    }

    /// `sh -c script` as the leader of a process group of its own.
    private static func spawnGroup(_ script: String) throws -> Int32 {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var pid: pid_t = 0
        let words: [String] = ["/bin/sh", "-c", script]
        var argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) }
        argv.append(nil)
        defer { argv.forEach { free($0) } }
        guard posix_spawn(&pid, "/bin/sh", nil, &attributes, argv, environ) == 0 else {
            throw TimedOut(description: "posix_spawn failed")
        }
        return pid
    }
}
