import LullCore

/// What a run job's end means: exit 0 succeeds; 75 (`EX_TEMPFAIL`) or a listed code fails
/// retryable, so the retry policy applies; any other exit, or a signal, fails for good. Every
/// failure has the code `exit_status` and carries the result (exit code or signal, output tail,
/// CPU, memory and storage I/O), which the failed job keeps.
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
        memoryPeakBytes: Int64,
        ioReadBytes: Int64? = nil,
        ioWriteBytes: Int64? = nil
    ) -> JobResult {
        JobResult(
            exitCode: exitCode(status),
            signal: signal(status),
            outputTail: outputTail,
            cpuSeconds: (cpuSeconds * 1000).rounded() / 1000,
            memoryPeakBytes: memoryPeakBytes,
            ioReadBytes: ioReadBytes,
            ioWriteBytes: ioWriteBytes
        )
    }

    /// The result of a supervised process: `wait4`'s rusage, each number raised to what the
    /// readings while it ran saw. rusage counts the leader and the descendants reaped into it;
    /// a reading counts the group's live processes with what they reaped. Each is a lower
    /// bound of what the group used, so the larger is kept (never their sum, which would count
    /// the leader twice): a reading adds what rusage cannot see, the group's processes that
    /// outlived the leader or were reaped by init, and its memory held by several at once.
    static func result(
        of end: ProcessSupervisor.End,
        outputTail: String?,
        sampled: RunningCommands.Sampled?
    ) -> JobResult {
        let last = sampled?.last
        func floor(_ ended: Int64?, _ seen: Int64?) -> Int64? {
            guard let ended else { return nil }
            return max(ended, seen ?? 0)
        }
        return result(
            status: end.status,
            outputTail: outputTail,
            cpuSeconds: max(end.cpuSeconds, last?.cpuSeconds ?? 0),
            memoryPeakBytes: max(end.memoryPeakBytes, sampled?.memoryPeakBytes ?? 0),
            ioReadBytes: floor(end.ioReadBytes, last?.ioReadBytes),
            ioWriteBytes: floor(end.ioWriteBytes, last?.ioWriteBytes)
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
