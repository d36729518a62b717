import LullCore
import Testing

@Suite struct ReadyQueueTests {
    @Test func popsInSubmissionOrderWhateverTheInsertionOrder() {
        var queue = ReadyQueue([JobID(5), JobID(2), JobID(9)])
        queue.insert(JobID(1))
        #expect(queue.popFirst() == JobID(1))
        #expect(queue.popFirst() == JobID(2))
        #expect(queue.popFirst() == JobID(5))
        #expect(queue.popFirst() == JobID(9))
        #expect(queue.popFirst() == nil)
    }

    @Test func removedJobsNeverComeOut() {
        var queue = ReadyQueue((1...100).map { JobID(Int64($0)) })
        for id in stride(from: 1, through: 100, by: 2) { queue.remove(JobID(Int64(id))) }
        #expect(queue.count == 50)
        var popped: [Int64] = []
        while let id = queue.popFirst() { popped.append(id.rawValue) }
        #expect(popped == Array(stride(from: 2, through: 100, by: 2)))
    }

    @Test func reinsertingAfterRemovalWorksAndDuplicatesAreIgnored() {
        var queue = ReadyQueue()
        queue.insert(JobID(3))
        queue.insert(JobID(3))
        queue.remove(JobID(3))
        queue.insert(JobID(3))
        #expect(queue.count == 1)
        #expect(queue.popFirst() == JobID(3))
        #expect(queue.popFirst() == nil)
    }
}

@Suite struct SchedulerTests {
    @Test func fillsOnlyFreeSlots() {
        var ready = ReadyQueue((1...10).map { JobID(Int64($0)) })
        let scheduler = Scheduler(maxConcurrent: 4)
        #expect(scheduler.jobsToStart(from: &ready, running: 1) == [JobID(1), JobID(2), JobID(3)])
        #expect(scheduler.jobsToStart(from: &ready, running: 4).isEmpty)
        #expect(ready.count == 7)
    }

    @Test func zeroConcurrencyHoldsEverything() {
        var ready = ReadyQueue([JobID(1)])
        #expect(Scheduler(maxConcurrent: 0).jobsToStart(from: &ready, running: 0).isEmpty)
        #expect(ready.count == 1)
    }
}

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
        #expect(JobCommand.resume.target(from: .queued) == .failure(JobCommandRefusal(command: .resume, state: .queued)))
    }

    @Test func refusalsSayWhatWouldWork() {
        let refusal = JobCommandRefusal(command: .resume, state: .succeeded)
        #expect(refusal.description == "cannot resume a job that is succeeded; only paused jobs can be resumed")
    }
}
