import Foundation
import LullCore
import Testing

/// What the state machine concludes from the end of an attempt: retry or fail by the class's
/// policy, the next occurrence of a periodic job, and whether an interruption is requeued.
@Suite struct AttemptConclusionTests {
    let machine = DispatchStateMachine(
        policy: .defaults,
        world: Worlds.pluggedIn,
        localTime: .utc,
        knownUntil: at(hours(24))
    )
    let transient = JobFailure(code: "http_503", message: "unavailable", retryable: true)

    @Test func aRetryableFailureWithAttemptsLeftIsRetriedAfterTheClassBackoff() {
        // `default`: 5 attempts, 10 s base: after attempt 2 the ceiling is 20 s, jittered by half.
        let conclusion = machine.attemptEnded(storedJob(1, attempts: 2), .failed(transient), wall: epoch) { 0.5 }
        #expect(conclusion == .retry(transient, delay: 10))
    }

    /// A server's `Retry-After` sets the delay when it is longer than the backoff: the job's own
    /// 0.05 s base would retry at once, so only the header explains a 3 s delay.
    @Test func aRetryAfterLongerThanTheBackoffIsTheDelay() {
        let busy = JobFailure(code: "http_429", message: "too many requests", retryable: true, retryAfter: 3)
        let job = storedJob(1, retry: RetrySettings(maxAttempts: 8, baseSeconds: 0.05, capSeconds: 0.2))
        #expect(machine.attemptEnded(job, .failed(busy), wall: epoch) { 1 } == .retry(busy, delay: 3))
    }

    @Test func theLastAttemptAndAPermanentFailureFailForGood() {
        let last = machine.attemptEnded(storedJob(1, attempts: 5), .failed(transient), wall: epoch) { 0.5 }
        #expect(last == .fail(transient, next: nil))
        let permanent = JobFailure(code: "http_404", message: "not found", retryable: false)
        let refused = machine.attemptEnded(storedJob(1, attempts: 1), .failed(permanent), wall: epoch) { 0.5 }
        #expect(refused == .fail(permanent, next: nil))
    }

    @Test func aSuccessDrawsNoRandomNumber() {
        let result = JobResult(httpStatus: 200)
        let conclusion = machine.attemptEnded(storedJob(1), .succeeded(result), wall: epoch) {
            Issue.record("no jitter is needed for a success")
            return 0
        }
        #expect(conclusion == .succeed(result, next: nil))
    }

    @Test func aPeriodicJobNamesItsNextOccurrenceWhetherItSucceedsOrFails() throws {
        let periodic = PeriodicSchedule(every: 3600, flex: 600)
        let job = storedJob(1, attempts: 5, periodic: periodic)
        guard
            case .succeed(_, let next?) = machine.attemptEnded(
                job,
                .succeeded(JobResult()),
                wall: epoch,
                unitRandom: { 0 }
            )
        else {
            Issue.record("a success stores the next occurrence")
            return
        }
        #expect(next.job.spec.notBefore == at(3000))
        guard
            case .fail(_, let afterFailure?) = machine.attemptEnded(
                job,
                .failed(transient),
                wall: epoch,
                unitRandom: { 0 }
            )
        else {
            Issue.record("a final failure stores the next occurrence too")
            return
        }
        #expect(afterFailure.job.spec.deadline == at(3600))
    }

    @Test func anInterruptionIsRequeuedOnlyWhenTheDaemonCausedIt() {
        var machine = machine
        let job = storedJob(1)
        #expect(machine.attemptEnded(job, .interrupted, wall: epoch) { 0 } == .settledByCommand)
        _ = machine.sleep()
        #expect(machine.attemptEnded(job, .interrupted, wall: epoch) { 0 } == .requeue(.sleep))
        machine.stop()
        #expect(machine.attemptEnded(job, .interrupted, wall: epoch) { 0 } == .requeue(.stop))
    }

    @Test func anInterruptedJobWaitsInTheQueueOnlyBeforeSleep() {
        var machine = machine
        _ = machine.sleep()
        machine.interruptionRecorded(job(1), now: epoch)
        #expect(machine.queuedCount == 1)
        machine.stop()
        machine.interruptionRecorded(job(2), now: epoch)
        #expect(machine.queuedCount == 1, "at a stop the job stays in the store for the next start")
    }
}
