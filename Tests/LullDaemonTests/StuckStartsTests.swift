import LullCore
import Testing

@testable import LullTransfer

/// The bookkeeping of starts given up while their threads hang (the hung-mount test drives
/// the real thing; this holds the limit, which would take 16 hung starts there, and the race
/// of a give-up with a thread coming back).
@Suite struct StuckStartsTests {
    @Test func aJobWaitsForItsOwnStuckStartAndAllWaitAtTheLimit() {
        let stuck = StuckStarts(limit: 2)
        let (first, second) = (ProcessSupervisor(), ProcessSupervisor())
        #expect(stuck.refusal(for: JobID(1)) == nil)
        #expect(stuck.giveUp(first, of: JobID(1)))
        #expect(stuck.refusal(for: JobID(1))?.code == "start_stuck", "its own start is still out")
        #expect(stuck.refusal(for: JobID(2)) == nil && !stuck.isFull, "another job may start")
        #expect(stuck.giveUp(second, of: JobID(2)))
        #expect(stuck.isFull, "two out, the limit: starts wait")
        #expect(stuck.refusal(for: JobID(3)) == nil, "waiting, not failing: no retry is spent")

        stuck.returned(first, of: JobID(1))
        #expect(stuck.count == 1 && !stuck.isFull)
        #expect(stuck.refusal(for: JobID(1)) == nil)
    }

    /// A start that failed on its own (no such program) brings its thread back before its
    /// process ever runs; a cancel or timeout coming right after must not record it as stuck,
    /// or the job would be refused until lulld restarts.
    @Test func aThreadBackBeforeTheGiveUpLeavesNothingStuck() {
        let stuck = StuckStarts(limit: 2)
        let failed = ProcessSupervisor()
        stuck.returned(failed, of: JobID(1))
        #expect(!stuck.giveUp(failed, of: JobID(1)))
        #expect(stuck.count == 0 && stuck.refusal(for: JobID(1)) == nil)

        let ran = ProcessSupervisor()
        #expect(ran.beginLaunch() && ran.launched())
        #expect(!stuck.giveUp(ran, of: JobID(2)), "a running process is not given up")
        stuck.returned(ran, of: JobID(2))
        #expect(stuck.count == 0)
    }
}
