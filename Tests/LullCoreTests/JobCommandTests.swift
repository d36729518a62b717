import LullCore
import Testing

@Suite struct JobCommandTests {
    @Test func commandsApplyOnlyInTheirStates() {
        #expect(JobCommand.cancel.target(from: .running) == .success(.cancelled))
        #expect(JobCommand.pause.target(from: .queued) == .success(.paused))
        #expect(JobCommand.resume.target(from: .paused) == .success(.queued))
        for state in JobState.allCases where state.isTerminal {
            for command in JobCommand.allCases {
                #expect(command.target(from: state) == .failure(JobCommandRefusal(command: command, state: state)))
            }
        }
        #expect(
            JobCommand.resume.target(from: .queued) == .failure(JobCommandRefusal(command: .resume, state: .queued))
        )
    }

    @Test func refusalsSayWhatWouldWork() {
        let refusal = JobCommandRefusal(command: .resume, state: .succeeded)
        #expect(refusal.description == "cannot resume a job that is succeeded; only paused jobs can be resumed")
    }
}
