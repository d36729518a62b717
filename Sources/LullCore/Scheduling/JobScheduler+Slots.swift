import Foundation
import HeapModule

/// The scheduler's storage: slots for queued jobs, the lanes and heaps that order them, the
/// timers of each group, and the compaction of stale heap items.
extension JobScheduler {
    mutating func allocate(_ entry: SchedulerEntry) -> Int {
        if let slot = freeSlots.popLast() {
            slots[Int(slot)] = entry
            return Int(slot)
        }
        slots.append(entry)
        return slots.count - 1
    }

    /// Removes a queued job from every structure (its heap items go stale) and frees its slot.
    mutating func drop(_ slot: Int) {
        detach(slot)
        slotOf[slots[slot].id] = nil
        freeSlots.append(UInt32(slot))
        leave(bucket: Int(slots[slot].bucket))
    }

    /// Takes a job out of its pool's counts; its heap items go stale (new generation).
    mutating func detach(_ slot: Int) {
        let bucket = Int(slots[slot].bucket)
        let group = bucketInfo[bucket].group
        switch slots[slot].pool {
        case .ready:
            buckets[bucket].ready -= 1
            groups[group].live -= 1
        case .timed:
            groups[group].live -= 1
        case .held:
            held[slots[slot].id] = nil
        case .paused, .detached:
            break
        }
        generation &+= 1
        slots[slot].pool = .detached
        slots[slot].gen = generation
        detachesSinceCompaction += 1
    }

    /// Puts a detached job where its timing says, with the timers of its next transitions.
    mutating func attach(_ slot: Int, now: Double) {
        var e = slots[slot]
        guard e.pool == .detached else { return }
        let id = e.id
        let ref = UInt32(slot)
        let bucket = Int(e.bucket)
        let group = bucketInfo[bucket].group
        let deadline = e.deadline
        let pastDeadline = e.hasDeadline && deadline <= now
        if pastDeadline && e.onDeadline == .expire {
            pendingExpired.append(id)
            drop(slot)
            return
        }
        groups[group].live += 1
        if e.hasDeadline && !pastDeadline {
            addTimer(to: \.deadlineTimers, group: group, TimerItem(time: deadline, slot: ref, gen: e.gen))
        }
        let readyAt = e.readyAt
        if readyAt > now {
            e.pool = .timed
            slots[slot] = e
            let timer = TimerItem(time: readyAt, slot: ref, gen: e.gen)
            // Past its deadline, its readiness is a deadline event: it may start however the world is.
            if pastDeadline {
                addTimer(to: \.deadlineTimers, group: group, timer)
            } else {
                addTimer(to: \.loudTimers, group: group, timer)
            }
            return
        }
        e.pool = .ready
        slots[slot] = e
        let item: PoolItem
        if pastDeadline {
            item = PoolItem(tier: PoolItem.overdue, gen: e.gen, time: deadline, id: id, slot: ref)
        } else if e.deferrable && deadline - policy.coalescingLead > now {
            item = PoolItem(tier: PoolItem.rider, gen: e.gen, time: deadline, id: id, slot: ref)
            addTimer(
                to: \.loudTimers,
                group: group,
                TimerItem(time: deadline - policy.coalescingLead, slot: ref, gen: e.gen)
            )
        } else if e.hasDeadline && deadline - policy.urgencyHorizon <= now {
            item = PoolItem(tier: PoolItem.urgent, gen: e.gen, time: deadline, id: id, slot: ref)
        } else {
            item = PoolItem(tier: PoolItem.ordinary, gen: e.gen, time: 0, id: id, slot: ref)
            if e.hasDeadline {
                addTimer(
                    to: \.quietTimers,
                    group: group,
                    TimerItem(time: deadline - policy.urgencyHorizon, slot: ref, gen: e.gen)
                )
            }
        }
        buckets[bucket].ready += 1
        insert(item, bucket: bucket, host: e.host)
    }

    mutating func addTimer(to heaps: WritableKeyPath<JobScheduler, [Heap<TimerItem>]>, group: Int, _ timer: TimerItem) {
        self[keyPath: heaps][group].insert(timer)
        earliestTimer = min(earliestTimer, timer.time)
    }

    mutating func replace(_ slot: Int, now: Double) {
        detach(slot)
        attach(slot, now: now)
    }

    mutating func insert(_ item: PoolItem, bucket b: Int, host: UInt32) {
        // One hash lookup, and the lane changed in place (a copy would copy its heap).
        if let ref = Self.push(item, into: &buckets[b].lanes[host, default: Lane()], host: host) {
            buckets[b].laneHeap.insert(ref)
        }
    }

    /// Adds `item` to `lane`; returns the lane's new reference when `item` became its best.
    private static func push(_ item: PoolItem, into lane: inout Lane, host: UInt32) -> LaneRef? {
        let oldTop = lane.heap.min
        lane.heap.insert(item)
        guard !lane.parked, oldTop.map({ item < $0 }) ?? true else { return nil }
        lane.version &+= 1
        return LaneRef(top: item, host: host, version: lane.version)
    }

    /// Drops stale items from the top of a lane; removes the lane when it empties.
    /// Returns the lane's live top, if any.
    mutating func cleanLane(bucket b: Int, host: UInt32) -> PoolItem? {
        while let top = buckets[b].lanes[host]?.heap.min {
            if slots[Int(top.slot)].gen == top.gen { return top }
            buckets[b].lanes[host]!.heap.removeMin()
        }
        buckets[b].lanes[host] = nil
        return nil
    }

    /// The best ready job of a bucket over the lanes whose host has a free slot. Lanes of full
    /// hosts met on the way are parked (they come back when their host frees a slot).
    mutating func top(ofBucket b: Int) -> (item: PoolItem, host: UInt32)? {
        while let ref = buckets[b].laneHeap.min {
            // Read lane fields one at a time: holding a copy of a lane would make the next
            // mutation copy its whole heap.
            guard buckets[b].lanes[ref.host]?.version == ref.version, buckets[b].lanes[ref.host]?.parked == false,
                let top = cleanLane(bucket: b, host: ref.host)
            else {
                buckets[b].laneHeap.removeMin()
                continue
            }
            let hostFull = ref.host != hostless && runningByHost[ref.host, default: 0] >= hostLimit
            if top == ref.top && !hostFull { return (top, ref.host) }
            buckets[b].laneHeap.removeMin()
            buckets[b].lanes[ref.host]!.version &+= 1
            if hostFull {
                buckets[b].lanes[ref.host]!.parked = true
                parkedLanes[ref.host, default: []].append(b)
            } else {
                buckets[b].laneHeap.insert(
                    LaneRef(top: top, host: ref.host, version: buckets[b].lanes[ref.host]!.version)
                )
            }
        }
        return nil
    }

    mutating func unpark(host: UInt32) {
        guard let parked = parkedLanes.removeValue(forKey: host) else { return }
        for b in parked where buckets[b].lanes[host]?.parked == true {
            buckets[b].lanes[host]!.parked = false
            buckets[b].lanes[host]!.version &+= 1
            guard let top = cleanLane(bucket: b, host: host) else { continue }
            buckets[b].laneHeap.insert(LaneRef(top: top, host: host, version: buckets[b].lanes[host]!.version))
        }
    }

    /// Rebuilds every heap without its stale items once they may outnumber the live ones:
    /// O(n), at most once per n re-placements, so O(1) amortised.
    mutating func compactIfNeeded() {
        guard detachesSinceCompaction > slotOf.count + 4096 else { return }
        detachesSinceCompaction = 0
        let slots = self.slots
        func live(_ item: PoolItem) -> Bool { slots[Int(item.slot)].gen == item.gen }
        func live(_ timer: TimerItem) -> Bool { slots[Int(timer.slot)].gen == timer.gen }
        for b in buckets.indices {
            var refs: [LaneRef] = []
            for host in Array(buckets[b].lanes.keys) {
                var lane = buckets[b].lanes.removeValue(forKey: host)!
                lane.heap = Heap(lane.heap.unordered.filter(live))
                guard let top = lane.heap.min else { continue }
                lane.version &+= 1
                if !lane.parked { refs.append(LaneRef(top: top, host: host, version: lane.version)) }
                buckets[b].lanes[host] = lane
            }
            buckets[b].laneHeap = Heap(refs)
        }
        for g in groups.indices {
            loudTimers[g] = Heap(loudTimers[g].unordered.filter(live))
            deadlineTimers[g] = Heap(deadlineTimers[g].unordered.filter(live))
            quietTimers[g] = Heap(quietTimers[g].unordered.filter(live))
        }
    }
}
