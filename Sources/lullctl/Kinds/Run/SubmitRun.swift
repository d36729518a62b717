import ArgumentParser
import Foundation
import LullAPI
import LullClient
import LullCore

struct SubmitRun: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a command when its conditions hold.",
        discussion: """
            The command after -- is run without a shell, as you, in your home directory unless \
            --cwd says otherwise, with a minimal environment (PATH, HOME, USER, LANG) plus each \
            --env. Exit 0 succeeds; exit 75 or a --retry-exit-code is tried again later; any other \
            status or a signal fails. A stopped command starts from the beginning next time. \
            Its output: lullctl logs ID.
            """
    )

    @Option(
        name: .customLong("env"),
        help: ArgumentHelp(
            "A variable for the command's environment, NAME=value (repeatable).",
            valueName: "NAME=value"
        )
    )
    var environment: [String] = []

    @Option(
        name: .customLong("cwd"),
        help: ArgumentHelp("The directory the command runs in (default: your home).", valueName: "dir"),
        completion: .directory
    )
    var directory: String?

    @Option(
        name: .customLong("retry-exit-code"),
        help: ArgumentHelp(
            "An exit status, 1 to 255, that means \"try again later\" besides 75 (repeatable).",
            valueName: "status"
        )
    )
    var retryExitCodes: [Int] = []

    @Option(
        name: .customLong("stop-grace"),
        help: ArgumentHelp(
            "Seconds between SIGTERM and SIGKILL when the command is stopped, 0 to 3600 (default 10).",
            valueName: "seconds"
        )
    )
    var stopGrace: Double?

    // Unconditional: `--nice -5` is a value, not an unknown option.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "The niceness the command starts at, -20 to 19 (below lulld's own needs root or CAP_SYS_NICE).",
            valueName: "n"
        )
    )
    var nice: Int?

    @Option(
        name: .customLong("cpu-weight"),
        help: ArgumentHelp(
            "The command's CPU share against other units, 1 to 10000 (systemd's CPUWeight=; needs [run] host = \"systemd\").",
            valueName: "n"
        )
    )
    var cpuWeight: Int?

    @Option(
        name: .customLong("memory-max"),
        help: ArgumentHelp(
            "The most memory the command may use, at least 1M, such as 2G (systemd's MemoryMax=; needs [run] host = \"systemd\").",
            valueName: "bytes"
        ),
        transform: { try ByteCountArgument(parsing: $0) }
    )
    var memoryMax: ByteCountArgument?

    @Option(
        name: .customLong("io-weight"),
        help: ArgumentHelp(
            "The command's I/O share against other units, 1 to 10000 (systemd's IOWeight=; needs [run] host = \"systemd\").",
            valueName: "n"
        )
    )
    var ioWeight: Int?

    @Option(
        name: .customLong("tasks-max"),
        help: ArgumentHelp(
            "The most processes and threads the command may have at once (systemd's TasksMax=; needs [run] host = \"systemd\").",
            valueName: "n"
        )
    )
    var tasksMax: Int?

    @Option(
        name: .customLong("output-tail"),
        help: ArgumentHelp(
            "How many bytes of the command's last output the result keeps, up to 1M (default 64K).",
            valueName: "bytes"
        ),
        transform: { try ByteCountArgument(parsing: $0) }
    )
    var outputTail: ByteCountArgument?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Instead of a command: an existing systemd unit to start and wait for (your own user unit for a user instance; needs [run] host = \"systemd\").",
            valueName: "name"
        )
    )
    var unit: String?

    @Option(name: .long, help: "A label to find the job by later.")
    var label: String?

    @Option(
        name: .customLong("class"),
        help: "The priority class (interactive, default, utility, background, maintenance)."
    )
    var jobClass: String?

    @OptionGroup(title: "Scheduling") var scheduling: SchedulingOptions
    @OptionGroup(title: "Retries, timeouts and rate") var transfer: TransferOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var format: OutputOptions

    @Argument(
        parsing: .postTerminator,
        help: ArgumentHelp("-- then the command and its arguments.", valueName: "command")
    )
    var command: [String] = []

    func validate() throws {
        if unit != nil {
            guard command.isEmpty else { throw ValidationError("give either --unit or a command after --, not both") }
            return
        }
        guard !command.isEmpty else {
            throw ValidationError("give the command after --, as in: lullctl submit run -- rsync -a ~/src /backup")
        }
    }

    func run() async throws {
        var variables: [String: String] = [:]
        for entry in environment {
            guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex else {
                throw ValidationError("--env \"\(entry)\" must look like NAME=value")
            }
            variables[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
        }
        var submission = JobSubmission(
            kind: .run,
            url: "",
            label: label,
            jobClass: jobClass,
            argv: unit == nil ? command : nil,
            workingDirectory: directory.map(absolutePath),
            environment: variables.isEmpty ? nil : variables,
            retryExitCodes: retryExitCodes.isEmpty ? nil : retryExitCodes,
            stopGraceSeconds: stopGrace,
            outputTailBytes: outputTail.map { Int($0.bytes) }
        )
        submission.nice = nice
        submission.cpuWeight = cpuWeight
        submission.memoryMax = memoryMax?.bytes
        submission.ioWeight = ioWeight
        submission.tasksMax = tasksMax
        submission.unit = unit
        try scheduling.apply(to: &submission)
        transfer.apply(to: &submission)
        try await submitAndPrint(submission, connection: connection, output: format)
    }
}
