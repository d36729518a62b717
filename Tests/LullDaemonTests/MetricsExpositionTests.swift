import Foundation
import LullCore
import LullTestSupport
import Testing

@testable import LullDaemon

/// `/metrics` without a daemon: the label guard on failure codes, the `process_*` readings, and
/// what a render holds. The daemon's answer as a whole is checked by promtool in `SensingTests`.
@Suite struct MetricsExpositionTests {
    @Test func failureCodesOutsideTheVocabularyBecomeOther() {
        #expect(FailureCodeLabel.value("checksum_mismatch") == "checksum_mismatch")
        #expect(FailureCodeLabel.value("http_404") == "http_404")
        #expect(FailureCodeLabel.value("http_503") == "http_503")
        for outside in [
            "http_4040", "http_40", "http_999", "http_abc", "https://example.com/x", "HTTP_404", "", "timeout2",
        ] {
            #expect(FailureCodeLabel.value(outside) == "other", "\(outside)")
        }
    }

    /// The vocabulary is the documented table, and every code the sources throw is in it: a new
    /// code left out would be counted as `other`.
    @Test func theVocabularyIsEveryDocumentedAndThrownCode() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let api = try String(contentsOf: root.appendingPathComponent("docs/api.md"), encoding: .utf8)
        let table = try #require(api.range(of: "| code | retryable | cause |"))
        var documented: Set<String> = []
        for line in api[table.upperBound...].split(separator: "\n").dropFirst() {
            guard line.hasPrefix("| `") else { break }
            documented.insert(String(line.dropFirst(3).prefix { $0 != "`" }))
        }
        documented.remove("http_NNN")
        #expect(documented == FailureCodeLabel.known)

        let thrown = try NSRegularExpression(pattern: #"JobFailure\(\s*code: "([a-z0-9_]+)""#)
        var inSources: Set<String> = []
        let sources = root.appendingPathComponent("Sources")
        for case let file as URL in FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)!
        where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in thrown.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                inSources.insert((text as NSString).substring(with: match.range(at: 1)))
            }
        }
        #expect(!inSources.isEmpty)
        #expect(inSources.subtracting(FailureCodeLabel.known).isEmpty, "thrown but not in the vocabulary")
    }

    @Test func aStatLineIsReadPastACommandNameWithSpacesAndParentheses() throws {
        let line =
            "4242 (lull d) (x)) S 1 4242 4242 0 -1 4194560 900 0 0 0 150 50 0 0 20 0 9 0 123456 983408640 12480 "
            + "18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 3 0 0 0 0 0"
        let stat = try #require(ProcessStatistics.Stat(line))
        #expect(stat.cpuTicks == 200 && stat.startTicks == 123_456)
        #expect(stat.virtualBytes == 983_408_640 && stat.residentPages == 12_480)
        #expect(ProcessStatistics.Stat("4242 (lulld) S 1 2 3") == nil)
        #expect(ProcessStatistics.bootTime("cpu  1 2 3\nintr 5\nbtime 1700000000\nprocesses 9\n") == 1_700_000_000)
    }

    @Test func thisProcessHasPlausibleNumbers() {
        let process = ProcessStatistics.current()
        #expect(process.cpuSeconds > 0)
        #expect(process.residentBytes > 1_000_000)
        #expect(process.virtualBytes >= process.residentBytes)
        #expect(process.openFDs > 2 && process.openFDs <= process.maxFDs)
        #expect(abs(process.startTime - Date().timeIntervalSince1970) < 24 * 3600)
    }

    /// Every family has its HELP and TYPE line, a code from outside lands on `other`, and failed
    /// jobs are counted by code while retried attempts are not.
    @Test func aRenderDescribesEveryFamily() throws {
        let metrics = DaemonMetrics()
        metrics.jobStarted(kind: .fetch, jobClass: "default")
        metrics.jobFinished(kind: .fetch, outcome: "retrying", reason: "http_503")
        metrics.jobFinished(kind: .fetch, outcome: "failed", reason: "http_404")
        metrics.jobFinished(kind: .push, outcome: "failed", reason: "GET https://example.com/secret")
        metrics.jobFinished(kind: .fetch, outcome: "expired", reason: "deadline")
        metrics.jobStopped(kind: .fetch, reason: .onBattery)
        metrics.runAttemptEnded(
            jobClass: "batch",
            result: JobResult(exitCode: 0, cpuSeconds: 1.5, memoryPeakBytes: 4096, ioReadBytes: 512, ioWriteBytes: 8192)
        )
        metrics.runAttemptEnded(
            jobClass: "batch",
            usage: CommandUsage(cpuSeconds: 0.25, cpuPercent: nil, memoryBytes: 1)
        )
        metrics.runAttemptEnded(jobClass: "batch", result: JobResult(httpStatus: 200))
        var world = WorldSnapshot.assumed
        world.power.batteryPercent = 55
        world.pressure.cpu = 12.5
        let snapshot = MetricsSnapshot(
            jobs: [JobCountKey(jobClass: "default", state: .queued): 1],
            running: 0,
            runMemoryBytes: 3 << 20,
            world: world,
            scheduling: SchedulingStatistics(),
            samplerRunning: false,
            samplerTicks: 3,
            process: .current()
        )
        let text = String(decoding: metrics.render(snapshot), as: UTF8.self)

        let lines = text.split(separator: "\n")
        var typed: [String: String] = [:]
        for line in lines where line.hasPrefix("# TYPE ") {
            let words = line.split(separator: " ")
            typed[String(words[2])] = String(words[3])
        }
        let helped = Set(lines.filter { $0.hasPrefix("# HELP ") }.map { String($0.split(separator: " ")[2]) })
        #expect(Set(typed.keys) == helped)
        for (name, type) in typed where type == "counter" {
            #expect(name.hasSuffix("_total"), "\(name)")
        }
        #expect(typed == (try documentedFamilies()), "docs/api.md's table of /metrics against a render")
        #expect(text.contains("lull_battery_charge_ratio 0.55\n"))
        #expect(text.contains(#"lull_pressure_some_avg10_ratio{resource="cpu"} 0.125"#))
        #expect(text.contains(#"lull_jobs_failed_total{kind="fetch",code="http_404"} 1"#))
        #expect(text.contains(#"lull_jobs_failed_total{kind="push",code="other"} 1"#))
        #expect(!text.contains(#"code="http_503""#), "a retried attempt is not a failed job")
        #expect(text.contains(#"lull_jobs_finished_total{kind="fetch",outcome="retrying",reason="http_503"} 1"#))
        #expect(text.contains(#"lull_jobs_finished_total{kind="fetch",outcome="expired",reason="deadline"} 1"#))
        #expect(!text.contains("example.com"))
        #expect(text.contains(#"lull_build_info{version="\#(LullVersion.current)"} 1"#))
        #expect(text.contains("lull_sampler_samples_total 3\n"))
        #expect(text.contains(#"lull_run_cpu_seconds_total{class="batch"} 1.75"#), "a transfer's result adds nothing")
        #expect(text.contains(#"lull_run_io_write_bytes_total{class="batch"} 8192"#))
        #expect(text.contains(#"lull_run_io_read_bytes_total{class="batch"} 512"#))
        #expect(text.contains("lull_run_memory_bytes 3145728.0\n"))

        // A second scrape copies the scheduler's counts in again rather than adding them up.
        let again = String(decoding: metrics.render(snapshot), as: UTF8.self)
        #expect(again.contains("lull_sampler_samples_total 3\n"))
    }

    /// Name → type of the families in the table of `GET /metrics` in docs/api.md.
    private func documentedFamilies() throws -> [String: String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let api = try String(contentsOf: root.appendingPathComponent("docs/api.md"), encoding: .utf8)
        let table = try #require(api.range(of: "| metric | type | labels | meaning |"))
        var families: [String: String] = [:]
        for line in api[table.upperBound...].split(separator: "\n").dropFirst() {
            guard line.hasPrefix("| `") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            families[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = cells[1]
        }
        return families
    }
}
