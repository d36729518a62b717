import Foundation
import LullAPI
import LullCore
import LullStore
import LullTestSupport
import Testing

/// `lullctl submit`'s scheduling flags, from the real binary to the real daemon: each value
/// arrives as given. Every daemon here holds its jobs (`max_concurrent = 0`), so nothing runs.
@Suite struct SubmitSchedulingEndToEndTests {
    static let lullctl = DaemonProcess.binary("lullctl")

    func lullctl(_ arguments: [String], _ daemon: DaemonProcess) throws -> CommandResult {
        try CommandRunner.run(Self.lullctl, arguments + ["--socket", daemon.socketPath])
    }

    /// `show`'s text lines with the padding between key and value squeezed to one space.
    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
    }

    @Test func constraintsAndTimesArriveAsGiven() async throws {
        // The test daemon talks to the system manager, which starts only the units listed.
        let config = holdEverything + "\n[hooks]\nallowed_units = [\"lull-e2e-done.service\"]\n"
        try await withDaemon(config: config) { daemon, _ in
            let destination = daemon.directory.appendingPathComponent("x.bin").path
            let before = Date()
            let submitted = try lullctl(
                [
                    "submit", "fetch", "http://127.0.0.1:9/x.bin", "-o", destination,
                    "--requires-ac", "--network", "unmetered", "--min-battery", "30%", "--not-before", "1h",
                    "--deadline", "2h",
                    "--on-deadline", "expire", "--on-complete-unit", "lull-e2e-done.service", "--label", "x", "--json",
                ],
                daemon
            )
            let after = Date()
            #expect(submitted.status == 0, "\(submitted.stderr)")
            let id = try WireJSON.decoder().decode(JobView.self, from: Data(submitted.stdout.utf8)).id

            // Read back as a person would.
            let shown = try lullctl(["show", String(id), "--json"], daemon)
            #expect(shown.status == 0, "\(shown.stderr)")
            let job = try WireJSON.decoder().decode(JobView.self, from: Data(shown.stdout.utf8))
            #expect(job.state == .queued)
            #expect(job.label == "x")
            #expect(job.onCompleteUnit == "lull-e2e-done.service")
            #expect(job.network == .unmetered && job.requiresAC == true && job.minBattery == 30, "\(job)")
            #expect(job.onDeadline == .expire)
            // Now + 1 h and now + 2 h, as of the moment lullctl ran (the API keeps whole seconds).
            let notBefore = try #require(job.notBefore)
            let deadline = try #require(job.deadline)
            #expect(
                notBefore >= before.addingTimeInterval(3_600 - 1) && notBefore <= after.addingTimeInterval(3_600),
                "\(notBefore)"
            )
            #expect(
                deadline >= before.addingTimeInterval(7_200 - 1) && deadline <= after.addingTimeInterval(7_200),
                "\(deadline)"
            )
            #expect(
                job.waitingFor?.contains { $0.code == "not_before" && $0.fromJob } == true,
                "\(String(describing: job.waitingFor))"
            )
            let text = try lullctl(["show", String(id)], daemon)
            let shownLines = Self.lines(text.stdout)
            for line in [
                "network unmetered", "requires AC yes", "min battery 30%",
                "on deadline expire if it has not started by then",
                "on complete starts lull-e2e-done.service",
            ] {
                #expect(shownLines.contains(line), "show prints \(line): \(text.stdout)")
            }
            for field in ["not before ", "deadline "] {
                #expect(shownLines.contains { $0.hasPrefix(field) }, "show prints \(field): \(text.stdout)")
            }

            // The scheduler holds the job by each of them as its own rule: on battery at 10% on a
            // metered link.
            let simulated = try lullctl(["simulate", "--on-battery", "--battery", "10", "--metered", "--json"], daemon)
            #expect(simulated.status == 0, "\(simulated.stderr)")
            let simulation = try WireJSON.decoder().decode(SimulationView.self, from: Data(simulated.stdout.utf8))
            let reasons = try #require(simulation.waiting.first { $0.jobId == id }?.reasons)
            func reason(_ code: String) -> WaitingReasonView? { reasons.first { $0.code == code } }
            #expect(reason("on_battery")?.limit == "requires_ac" && reason("on_battery")?.fromJob == true, "\(reasons)")
            #expect(
                reason("battery_below")?.limit == "min_battery 30" && reason("battery_below")?.fromJob == true,
                "\(reasons)"
            )
            #expect(
                reason("metered")?.limit == "network = unmetered" && reason("metered")?.fromJob == true,
                "\(reasons)"
            )

            // And exactly, in the store the daemon wrote.
            #expect(daemon.stop() == 0)
            let stored = try #require(
                try await SQLiteJobStore(path: daemon.stateDirectory + "/lull.sqlite").job(JobID(id))
            )
            #expect(stored.spec.constraints == JobConstraints(network: .unmetered, requiresAC: true, minBattery: 30))
            #expect(stored.spec.onDeadline == .expire)
            #expect(stored.spec.notBefore == job.notBefore && stored.spec.deadline == job.deadline)
        }
    }

    /// Conditions left to the class are not in the job object, and a deadline without
    /// `--on-deadline` says what the daemon will do then.
    @Test func conditionsNotGivenAreLeftOutAndTheDeadlineActionIsSaid() async throws {
        try await withDaemon(config: holdEverything) { daemon, _ in
            let destination = daemon.directory.appendingPathComponent("z.bin").path
            let submitted = try lullctl(
                [
                    "submit", "fetch", "http://127.0.0.1:9/z.bin", "-o", destination, "--network", "any", "--deadline",
                    "2h", "--json",
                ],
                daemon
            )
            #expect(submitted.status == 0, "\(submitted.stderr)")
            let id = try WireJSON.decoder().decode(JobView.self, from: Data(submitted.stdout.utf8)).id

            let shown = try lullctl(["show", String(id), "--json"], daemon)
            #expect(shown.status == 0, "\(shown.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
            for key in ["network", "requires_ac", "min_battery"] {
                #expect(object[key] == nil, "\(key) is left out when the job leaves it to its class: \(shown.stdout)")
            }
            #expect(object["on_deadline"] as? String == "run", "\(shown.stdout)")

            let text = try lullctl(["show", String(id)], daemon)
            let lines = Self.lines(text.stdout)
            for key in ["network ", "requires AC ", "min battery "] {
                #expect(!lines.contains { $0.hasPrefix(key) }, "\(text.stdout)")
            }
            #expect(lines.contains { $0.hasPrefix("on deadline start even if") }, "\(text.stdout)")
        }
    }

    @Test func periodicFlagsArriveAsTheSchedule() async throws {
        try await withDaemon(config: holdEverything) { daemon, _ in
            let submitted = try lullctl(
                [
                    "submit", "push", "http://127.0.0.1:9/ping", "--data", "hi", "--every", "1h", "--flex", "10m",
                    "--jitter", "2m",
                    "--max-every", "4h", "--network", "not_cellular", "--json",
                ],
                daemon
            )
            #expect(submitted.status == 0, "\(submitted.stderr)")
            let job = try WireJSON.decoder().decode(JobView.self, from: Data(submitted.stdout.utf8))
            #expect(job.periodic == PeriodicSchedule(every: 3_600, flex: 600, jitter: 120, maxEvery: 14_400))
            #expect(job.periodSeconds == 3_600)
            // The text view says it too, not only --json.
            let shown = try lullctl(["show", String(job.id)], daemon)
            #expect(shown.status == 0, "\(shown.stderr)")
            let every = shown.stdout.split(separator: "\n").first { $0.hasPrefix("every ") }
            #expect(every?.hasSuffix("  1 h (flex 10 min, jitter 2 min, at most 4 h)") == true, "\(shown.stdout)")
        }
    }

    @Test func badValuesAreRefusedNamingTheFlagAndNothingIsSubmitted() async throws {
        try await withDaemon(config: holdEverything) { daemon, _ in
            let destination = daemon.directory.appendingPathComponent("y.bin").path
            let cases: [(arguments: [String], says: [String])] = [
                (["--not-before", "tomorrowish"], ["--not-before", "ISO-8601", "2026-11-21T18:00:00Z", "30m"]),
                (["--deadline", "2026-11-21T18:00:00"], ["--deadline", "no time zone"]),
                (["--min-battery", "150"], ["--min-battery", "from 0 to 100"]),
                (["--network", "online"], ["--network", "any, unmetered, not_cellular"]),
                (["--on-deadline", "fail", "--deadline", "1h"], ["--on-deadline", "run, expire"]),
                (["--every", "5m"], ["--every 5m is out of range", "15m to 366d"]),
                (["--on-deadline", "expire"], ["--on-deadline needs --deadline"]),
                (["--not-before", "2h", "--deadline", "1h"], ["--deadline", "is before --not-before"]),
            ]
            for (arguments, says) in cases {
                let result = try lullctl(
                    ["submit", "fetch", "http://127.0.0.1:9/y.bin", "-o", destination] + arguments,
                    daemon
                )
                #expect(result.status != 0, "\(arguments) was accepted")
                for words in says { #expect(result.stderr.contains(words), "\(arguments): \(result.stderr)") }
            }
            let listed = try lullctl(["list", "--json"], daemon)
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect(
                try WireJSON.decoder().decode(JobListView.self, from: Data(listed.stdout.utf8)).jobs.isEmpty,
                "\(listed.stdout)"
            )
        }
    }
}
