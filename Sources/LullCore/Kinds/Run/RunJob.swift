/// Run a program: `argv` executed without a shell, in `working_directory`, with a minimal
/// environment plus `environment`, its output kept in a capped per-job log. A command does not
/// resume: an attempt that is stopped starts from the beginning next time.
/// Its `Codable` form is the stored spec's (property names); the wire form is `JobSubmission`'s.
public struct RunJob: KindPayload {
    public static let kind = JobKind.run

    /// The program and its arguments; `argv[0]` is an absolute path or a name looked up on the
    /// job's `PATH` when an attempt starts.
    public var argv: [String]
    /// Absolute; nil runs in the owner's home directory.
    public var workingDirectory: String?
    /// Added to the minimal environment (`PATH`, `HOME`, `USER`, `LANG`), and may replace those.
    public var environment: [String: String]?
    /// Exit statuses besides 75 (`EX_TEMPFAIL`) that mean "try again later".
    public var retryExitCodes: [Int]?
    /// Seconds between SIGTERM and SIGKILL when an attempt is stopped. Filled in at submission.
    public var stopGraceSeconds: Double?
    /// How many of the last output bytes the result carries. Filled in at submission.
    public var outputTailBytes: Int?
    /// The niceness the command starts at (-20 to 19); nil: the daemon's. Below the daemon's own
    /// needs its privilege (root, or CAP_SYS_NICE).
    public var nice: Int?
    /// `cpu_weight`, `memory_max`, `io_weight`, `tasks_max`: controls only a systemd unit
    /// enforces; nil when none is given. Each one given replaces its class's default.
    public var resources: RunResources?
    /// Instead of `argv`: an existing systemd unit to start and wait for (the systemd host only;
    /// on the system instance only root may name one). `argv` is empty then.
    public var unit: String?

    public static let defaultStopGraceSeconds = 10.0
    public static let defaultOutputTailBytes = 64 << 10
    /// How the units lulld makes for commands begin; a job may not name one as its `unit`.
    public static let ownUnitPrefix = "lull-job-"

    public init(
        argv: [String],
        workingDirectory: String? = nil,
        environment: [String: String]? = nil,
        retryExitCodes: [Int]? = nil,
        stopGraceSeconds: Double? = nil,
        outputTailBytes: Int? = nil,
        nice: Int? = nil,
        resources: RunResources? = nil,
        unit: String? = nil
    ) {
        self.nice = nice
        self.resources = resources?.nonEmpty
        self.unit = unit
        self.argv = argv
        self.workingDirectory = workingDirectory
        self.environment = environment
        self.retryExitCodes = retryExitCodes
        self.stopGraceSeconds = stopGraceSeconds
        self.outputTailBytes = outputTailBytes
    }

    public var payload: JobPayload { .run(self) }
    public var host: String? { nil }
    public static var mayNeedNoNetwork: Bool { true }
    public var expectedBytesDown: Int64? { nil }
    public var expectedBytesUp: Int64? { nil }
    /// argv and environment values are checked by `validate` instead: a script may hold newlines
    /// and tabs, which the common check refuses.
    public var texts: [(field: String, text: String?)] { [("working_directory", workingDirectory)] }
    public var headers: [String: String]? { nil }
    public var progressDirection: ByteDirection { .received }
    public var journalFields: [String: String] { unit.map { ["unit": $0] } ?? ["argv0": argv.first ?? ""] }
    public var summary: String {
        unit.map { "run unit \($0)" } ?? "run " + argv.map(Self.quoted).joined(separator: " ")
    }

    /// The grace and the tail length every attempt and view use, decided once.
    public func prepared() -> RunJob {
        var job = self
        if job.stopGraceSeconds == nil { job.stopGraceSeconds = Self.defaultStopGraceSeconds }
        if job.outputTailBytes == nil { job.outputTailBytes = Self.defaultOutputTailBytes }
        return job
    }

    /// Whether exit status `code` asks to be tried again: 75 (`EX_TEMPFAIL`) or a listed one.
    public func retries(exitCode code: Int) -> Bool {
        code == 75 || (retryExitCodes ?? []).contains(code)
    }

    public func writeStored(_ section: StoredSpecSection, to json: inout JSONWriter) {
        guard case .trailing = section else { return }
        json.key("argv")
        json.array(argv) { json, word in json.string(word) }
        json.member("workingDirectory", workingDirectory)
        json.member("environment", environment)
        if let retryExitCodes {
            json.key("retryExitCodes")
            json.array(retryExitCodes) { json, code in json.integer(code) }
        }
        json.member("stopGraceSeconds", stopGraceSeconds)
        json.member("outputTailBytes", outputTailBytes)
        json.member("nice", nice)
        json.member("unit", unit)
        if let resources {
            json.key("resources")
            json.object { json in
                json.member("cpuWeight", resources.cpuWeight)
                json.member("memoryMax", resources.memoryMax)
                json.member("ioWeight", resources.ioWeight)
                json.member("tasksMax", resources.tasksMax)
            }
        }
    }

    /// A word as a shell would need it, for the journal line only (nothing is run through a shell).
    private static func quoted(_ word: String) -> String {
        let plain =
            !word.isEmpty
            && word.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                        || "-_./=:,+@%".unicodeScalars.contains(scalar))
            }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
