import Foundation
import LullCore
import Testing

@testable import LullDaemon

/// Followers are woken by the events they may see, not by every commit: with hundreds of idle
/// followers of other uids, each commit once cost a store query per follower.
struct EventHubTests {
    private let alice = OwnerID(1000)
    private let bob = OwnerID(2000)

    private func event(_ seq: Int64, _ owner: OwnerID) -> JobEvent {
        JobEvent(seq: seq, jobID: JobID(seq), owner: owner, time: Date(), type: .submitted, state: .queued)
    }

    /// Until `count` followers wait (a bounded number of turns of the executor, no sleeping).
    private func waitForWaiters(_ hub: EventHub, _ count: Int) async {
        var turns = 0
        while hub.waiting < count && turns < 1_000_000 {
            turns += 1
            await Task.yield()
        }
        #expect(hub.waiting == count)
    }

    /// The tail answers a cursor only when it holds every event after it; else the store does.
    @Test func followersThatKeepUpAreServedFromTheTail() {
        let hub = EventHub(recentCapacity: 4)
        let (alice, bob) = (alice, bob)
        hub.published(upTo: 10)
        #expect(hub.recent(after: 10, for: nil, limit: 10) == nil, "nothing published since start-up")
        hub.published([event(11, alice), event(12, bob), event(13, alice)])
        #expect(hub.recent(after: 10, for: nil, limit: 10)?.map(\.seq) == [11, 12, 13])
        #expect(hub.recent(after: 9, for: nil, limit: 10) == nil, "10 is the store's")
        #expect(hub.recent(after: 11, for: alice, limit: 10)?.map(\.seq) == [13])
        #expect(hub.recent(after: 10, for: bob, limit: 10)?.map(\.seq) == [12])
        #expect(hub.recent(after: 10, for: nil, limit: 2)?.map(\.seq) == [11, 12])
        #expect(hub.recent(after: 13, for: nil, limit: 10)?.isEmpty == true, "nothing newer")

        hub.published([event(14, bob), event(15, alice), event(16, bob)])
        #expect(hub.recent(after: 12, for: nil, limit: 10)?.map(\.seq) == [13, 14, 15, 16])
        #expect(hub.recent(after: 11, for: nil, limit: 10) == nil, "12 fell out of the tail of 4")

        // A gap: what lies in it is unknown here, so the tail starts again after it.
        hub.published([event(19, alice)])
        #expect(hub.recent(after: 18, for: nil, limit: 10)?.map(\.seq) == [19])
        #expect(hub.recent(after: 16, for: nil, limit: 10) == nil)
        // Events already published are not taken again.
        hub.published([event(19, alice)])
        #expect(hub.recent(after: 18, for: nil, limit: 10)?.map(\.seq) == [19])
    }

    /// Large events (a run job's output tail) count by their size, not one each.
    @Test func theTailIsBoundedByBytes() {
        let hub = EventHub(recentCapacity: 100, recentBytes: 200_000)
        func succeeded(_ seq: Int64, output: Int) -> JobEvent {
            var event = event(seq, alice)
            event.detail = JobEventDetail(result: JobResult(outputTail: String(repeating: "x", count: output)))
            return event
        }
        hub.published((1...3).map { succeeded($0, output: 65_536) })
        #expect(hub.recent(after: 0, for: nil, limit: 10)?.map(\.seq) == [1, 2, 3])
        hub.published([succeeded(4, output: 65_536)])
        #expect(hub.recent(after: 0, for: nil, limit: 10) == nil, "four of 64 KiB pass 200,000 bytes")
        #expect(hub.recent(after: 1, for: nil, limit: 10)?.map(\.seq) == [2, 3, 4])
        hub.published([succeeded(5, output: 300_000)])
        #expect(hub.recent(after: 4, for: nil, limit: 10) == nil, "larger than the whole budget: the store's")
        hub.published([event(6, bob)])
        #expect(hub.recent(after: 5, for: nil, limit: 10)?.map(\.seq) == [6])
    }

    @Test func aFollowerIsWokenOnlyByEventsItMaySee() async {
        let hub = EventHub()
        let (alice, bob) = (alice, bob)
        let forAlice = Task { await hub.wait(after: 0, for: alice) }
        let forRoot = Task { await hub.wait(after: 0, for: nil) }
        await waitForWaiters(hub, 2)

        hub.published([event(1, bob)])
        #expect(await forRoot.value == 1)
        #expect(hub.waiting == 1, "Alice's follower must sleep through Bob's event")

        hub.published([event(2, bob), event(3, alice), event(4, bob)])
        #expect(await forAlice.value == 3)
        #expect(hub.latest == 4)
        #expect(hub.latest(for: alice) == 3)
        #expect(hub.latest(for: bob) == 4)
        #expect(hub.latest(for: nil) == 4)

        // Published before the wait: it returns at once; nothing new: it waits.
        #expect(await hub.wait(after: 2, for: alice) == 3)
        let later = Task { await hub.wait(after: 3, for: alice) }
        await waitForWaiters(hub, 1)
        hub.published([event(5, alice)])
        #expect(await later.value == 5)
    }

    @Test func startUpSequenceWakesNobodyAndCancellationEndsAWait() async {
        let hub = EventHub()
        hub.published(upTo: 41)
        #expect(hub.latest == 41)
        // Alice's events before start-up are in the store; she waits for new ones.
        #expect(hub.latest(for: alice) == 0)
        let (alice, bob) = (alice, bob)
        let waiting = Task { await hub.wait(after: 0, for: alice) }
        await waitForWaiters(hub, 1)
        hub.published([event(42, bob)])
        #expect(hub.waiting == 1)
        waiting.cancel()
        #expect(await waiting.value == 0)
        #expect(hub.waiting == 0)
    }
}
