import Foundation
import LullCore
import Testing

/// Jobs to ever new hosts, each gone before the next comes: the scheduler's table of host names
/// stays bounded, and the queue it keeps is whole after the rebuilds that bound it.
@Suite struct HostTableTests {
    @Test func hostsOfJobsGoneDoNotAccumulate() {
        var scheduler = JobScheduler(policy: .defaults)
        let now = at(hours(12))
        scheduler.enqueue(job(1, host: "kept.example"), now: now)
        for n in Int64(2)..<20_000 {
            scheduler.enqueue(job(n, host: "h\(n).example"), now: now)
            let removed = scheduler.remove(JobID(n))
            #expect(removed)
        }
        #expect(scheduler.internedHosts <= 4096 + 2 + 1, "\(scheduler.internedHosts) hosts interned")
        #expect(scheduler.isQueued(JobID(1)))
        #expect(scheduler.queuedJob(JobID(1))?.host == "kept.example")
        let started = scheduler.decide(world: Worlds.pluggedIn, now: now).start.map(\.id)
        #expect(started == [JobID(1)])
    }
}
