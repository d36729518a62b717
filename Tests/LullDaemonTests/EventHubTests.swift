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
