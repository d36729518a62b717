import LullCore
import LullTransfer
import Testing

/// How a command's end maps to the job's outcome; the statuses are `wait`'s encoding.
@Suite struct RunExitTests {
    static let job = RunJob(argv: ["x"], retryExitCodes: [3])

    func outcome(_ status: Int32) -> Result<JobResult, JobFailure> {
        RunExit.outcome(
            of: RunExit.result(status: status, outputTail: "tail", cpuSeconds: 0.12345, memoryPeakBytes: 4096),
            job: Self.job
        )
    }

    @Test func exitZeroSucceeds() throws {
        let result = try outcome(0).get()
        #expect(result.exitCode == 0 && result.signal == nil)
        #expect(result.cpuSeconds == 0.123 && result.memoryPeakBytes == 4096 && result.outputTail == "tail")
    }

    @Test func otherExitsFailWithTheirStatus() {
        for (code, retryable) in [(1, false), (3, true), (75, true), (127, false), (255, false)] {
            guard case .failure(let failure) = outcome(Int32(code) << 8) else {
                Issue.record("exit \(code) succeeded")
                continue
            }
            #expect(failure.code == "exit_status" && failure.retryable == retryable, "exit \(code)")
            #expect(failure.result?.exitCode == code && failure.result?.signal == nil)
            #expect(failure.message.hasPrefix("the command exited with status \(code)"))
        }
    }

    @Test func aSignalFailsForGood() {
        guard case .failure(let failure) = outcome(9) else {
            Issue.record("a killed command succeeded")
            return
        }
        #expect(failure.code == "exit_status" && !failure.retryable)
        #expect(failure.result?.signal == 9 && failure.result?.exitCode == nil)
        #expect(failure.message == "the command was killed by signal 9 (SIGKILL)")
        // A core dump (0x80) does not change the signal.
        guard case .failure(let dumped) = outcome(0x80 | 11) else { return }
        #expect(dumped.result?.signal == 11)
    }

    @Test func theFailedJobKeepsTheResult() throws {
        guard case .failure(let failure) = outcome(3 << 8) else { return }
        let result = failure.result(with: JobAccounting())
        #expect(result.exitCode == 3 && result.accounting == JobAccounting())
    }
}
