import LullCore

extension RunJob: WireKind {
    /// The kind-specific wire fields it takes (see `refuseFields`).
    static let wireFields: Set<String> = [
        "argv", "working_directory", "environment", "retry_exit_codes", "stop_grace_seconds", "output_tail_bytes",
        "nice", "cpu_weight", "memory_max", "io_weight", "tasks_max", "unit",
    ]
    static var takesURL: Bool { false }

    /// The run job a wire submission describes. It talks to no server, so the transfer settings
    /// (`url`, `headers`, `ca_file`) are refused by name rather than dropped.
    init(_ submission: JobSubmission) throws(ValidationError) {
        try submission.refuseFields(except: Self.wireFields)
        for (field, present) in [
            ("url", !submission.url.isEmpty), ("headers", submission.headers != nil),
            ("ca_file", submission.caFile != nil),
        ] where present {
            throw ValidationError(.invalidValue, field: field, "\"\(field)\" does not apply to run jobs")
        }
        self.init(
            argv: submission.unit == nil ? try submission.required(submission.argv, "argv") : submission.argv ?? [],
            workingDirectory: submission.workingDirectory,
            environment: submission.environment,
            retryExitCodes: submission.retryExitCodes,
            stopGraceSeconds: submission.stopGraceSeconds,
            outputTailBytes: submission.outputTailBytes,
            nice: submission.nice,
            resources: RunResources(
                cpuWeight: submission.cpuWeight,
                memoryMax: submission.memoryMax,
                ioWeight: submission.ioWeight,
                tasksMax: submission.tasksMax
            ),
            unit: submission.unit
        )
    }
}
