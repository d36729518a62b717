import LullCore

/// What a run job's end means: exit 0 succeeds; 75 (`EX_TEMPFAIL`) or a listed code fails
/// retryable, so the retry policy applies; any other exit, or a signal, fails for good. Every
/// failure has the code `exit_status` and carries the result (exit code or signal, output tail,
/// CPU and memory), which the failed job keeps.
public enum RunExit {
    /// The exit status of a `wait` status, or nil when a signal ended the process.
    public static func exitCode(_ status: Int32) -> Int? {
        status & 0x7F == 0 ? Int((status >> 8) & 0xFF) : nil
    }

    /// The signal that ended the process, or nil when it exited.
    public static func signal(_ status: Int32) -> Int? {
        let number = status & 0x7F
        return number != 0 && number != 0x7F ? Int(number) : nil
    }

    /// The result of an ended process: its exit code or signal, output tail and usage.
    public static func result(
        status: Int32,
        outputTail: String?,
        cpuSeconds: Double,
        memoryPeakBytes: Int64
    ) -> JobResult {
        JobResult(
            exitCode: exitCode(status),
            signal: signal(status),
            outputTail: outputTail,
            cpuSeconds: (cpuSeconds * 1000).rounded() / 1000,
            memoryPeakBytes: memoryPeakBytes
        )
    }

    /// Success, or the failure that carries `result`.
    public static func outcome(of result: JobResult, job: RunJob) -> Result<JobResult, JobFailure> {
        if let code = result.exitCode {
            if code == 0 { return .success(result) }
            let retryable = job.retries(exitCode: code)
            let why =
                code == 75
                ? " (EX_TEMPFAIL: try again later)" : retryable ? " (listed in retry_exit_codes)" : ""
            return .failure(
                JobFailure(
                    code: "exit_status",
                    message: "the command exited with status \(code)\(why)",
                    retryable: retryable,
                    result: result
                )
            )
        }
        let number = result.signal ?? 0
        return .failure(
            JobFailure(
                code: "exit_status",
                message: "the command was killed by signal \(number)\(name(ofSignal: number).map { " (\($0))" } ?? "")",
                retryable: false,
                result: result
            )
        )
    }

    /// The usual name of a signal that ends programs.
    public static func name(ofSignal number: Int) -> String? {
        let names = [
            1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL",
            11: "SIGSEGV", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM", 24: "SIGXCPU", 25: "SIGXFSZ",
        ]
        return names[number]
    }
}
