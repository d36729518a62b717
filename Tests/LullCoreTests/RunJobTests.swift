import LullCore
import Testing

/// A run job's fields against their limits: each refusal names the field and the limit.
@Suite struct RunJobTests {
    func refusal(_ job: RunJob) -> ValidationError? {
        do {
            try JobSpecValidator(limits: SubmissionLimits()).validate(JobSpec(.run(job)))
            return nil
        } catch {
            return error
        }
    }

    @Test func acceptsACommandWithScriptsAndVariables() {
        let job = RunJob(
            argv: ["sh", "-c", "for f in *; do\n\techo \"$f\"\ndone; printf %s '$(id);x'"],
            workingDirectory: "/srv/data",
            environment: ["X": "1", "_private2": "a b", "PATH": "/opt/bin:/usr/bin"],
            retryExitCodes: [1, 255],
            stopGraceSeconds: 0,
            outputTailBytes: 1 << 20
        )
        #expect(refusal(job) == nil)
    }

    @Test func refusesEachBadFieldByName() {
        let cases: [(RunJob, String, String)] = [
            (RunJob(argv: []), "argv", "argv is empty; give the program and its arguments"),
            (RunJob(argv: [""]), "argv[0]", "argv[0] is empty; give the program to run"),
            (
                RunJob(argv: ["echo", "a\u{0}b"]), "argv[1]",
                "argv[1] holds a NUL byte at byte 1; a program cannot receive one"
            ),
            (RunJob(argv: ["echo", "\u{1b}[2J"]), "argv[1]", "U+001B"),
            (
                RunJob(argv: ["echo", String(repeating: "x", count: (128 << 10) + 1)]), "argv[1]",
                "the limit is 131072 bytes"
            ),
            (RunJob(argv: Array(repeating: "x", count: 4097)), "argv", "argv has 4097 words; the limit is 4096"),
            (RunJob(argv: ["true"], workingDirectory: "srv"), "working_directory", "not an absolute path"),
            (RunJob(argv: ["true"], workingDirectory: "/srv/../etc"), "working_directory", "\"..\""),
            (RunJob(argv: ["true"], environment: ["1X": "a"]), "environment", "\"1X\" is not valid"),
            (RunJob(argv: ["true"], environment: ["A-B": "a"]), "environment", "\"A-B\" is not valid"),
            (RunJob(argv: ["true"], environment: ["A": "\u{7}"]), "environment.A", "U+0007"),
            (RunJob(argv: ["true"], retryExitCodes: [0]), "retry_exit_codes", "from 1 to 255"),
            (RunJob(argv: ["true"], retryExitCodes: [256]), "retry_exit_codes", "holds 256"),
            (RunJob(argv: ["true"], stopGraceSeconds: 3601), "stop_grace_seconds", "from 0 to 3600"),
            (RunJob(argv: ["true"], stopGraceSeconds: -1), "stop_grace_seconds", "from 0 to 3600"),
            (RunJob(argv: ["true"], nice: 20), "nice", "from -20 to 19"),
            (RunJob(argv: ["true"], nice: -21), "nice", "from -20 to 19"),
            (RunJob(argv: ["true"], outputTailBytes: (1 << 20) + 1), "output_tail_bytes", "from 0 to 1048576 (1 MiB)"),
            // Out of range is said as such before whether the host can enforce them at all.
            (limited(RunResources(cpuWeight: 0)), "cpu_weight", "cpu_weight is 0; give a weight from 1 to 10000"),
            (limited(RunResources(cpuWeight: 10_001)), "cpu_weight", "from 1 to 10000"),
            (limited(RunResources(memoryMax: (1 << 20) - 1)), "memory_max", "give at least 1048576 bytes (1 MiB)"),
            (limited(RunResources(memoryMax: -1)), "memory_max", "memory_max is -1"),
            (limited(RunResources(ioWeight: 0)), "io_weight", "io_weight is 0; give a weight from 1 to 10000"),
            (limited(RunResources(tasksMax: 0)), "tasks_max", "tasks_max is 0; give a count from 1 to 4194304"),
            (limited(RunResources(tasksMax: 4_194_305)), "tasks_max", "from 1 to 4194304"),
        ]
        for (job, field, words) in cases {
            let error = refusal(job)
            #expect(error?.field == field, "\(job.argv.prefix(2)): \(String(describing: error))")
            #expect(error?.message.contains(words) == true, "\(String(describing: error?.message))")
        }
        #expect(refusal(RunJob(argv: ["true"], workingDirectory: "/tmp/\u{1b}x"))?.field == "working_directory")
    }

    func limited(_ resources: RunResources) -> RunJob { RunJob(argv: ["true"], resources: resources) }

    @Test func defaultsAreDecidedAtSubmission() {
        let prepared = RunJob(argv: ["true"]).prepared()
        #expect(prepared.stopGraceSeconds == 10 && prepared.outputTailBytes == 64 << 10)
        #expect(RunJob(argv: ["true"], stopGraceSeconds: 1).prepared().stopGraceSeconds == 1)
        #expect(prepared.host == nil)
    }

    @Test func exitStatusesThatAreRetried() {
        let job = RunJob(argv: ["true"], retryExitCodes: [3])
        #expect(job.retries(exitCode: 75) && job.retries(exitCode: 3))
        #expect(!job.retries(exitCode: 1) && !job.retries(exitCode: 0))
    }

    @Test func theJournalLineQuotesWordsAShellWouldSplit() {
        #expect(RunJob(argv: ["rsync", "-a", "/src dir", "it's"]).summary == #"run rsync -a '/src dir' 'it'\''s'"#)
    }
}
