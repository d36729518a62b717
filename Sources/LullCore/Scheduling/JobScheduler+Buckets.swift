import Foundation
import HeapModule

/// The scheduler's groups, buckets and hosts: interning what jobs share, and the counts kept as
/// jobs start and end.
extension JobScheduler {
    mutating func configureClasses() {
        precondition(!policy.classes.isEmpty, "a scheduling policy needs at least one class")
        for (index, cls) in policy.classes.enumerated() {
            classIndexByName[cls.name] = index
            classes.append(ClassState(maxConcurrent: cls.maxConcurrent, stride: Self.strideScale / max(1, cls.weight)))
        }
        defaultClassIndex = classIndexByName[JobClassName.default] ?? 0
        hostLimit = policy.perHost?.value ?? .max
        ownerLimit = policy.perOwner?.value ?? .max
        kindLimit = policy.perKind.mapValues(\.value)
        hostless = intern("")
    }

    /// Whether a costly link is in use or was within its tail: a job that needs the network runs
    /// or ran lately. (Jobs with `network: "none"` send nothing over it.)
    func linkIsAwake(now: Double) -> Bool {
        running.values.contains { $0.rule.needsNetwork } || now - lastLinkActivity <= policy.linkTail
    }

    mutating func intern(_ host: String) -> UInt32 {
        if let index = hostIndex[host] { return index }
        let index = UInt32(hostNames.count)
        hostNames.append(host)
        hostIndex[host] = index
        return index
    }

    mutating func group(for key: GroupKey) -> Int {
        if let index = groupIndex[key] { return index }
        let effective = EffectiveConstraints(classPolicy: policy.classes[key.classIndex], job: key.constraints)
        let state = GroupState(key: key, effective: effective)
        let rule = GroupRule(
            classIndex: key.classIndex,
            effective: effective,
            tooBigForMetered: key.tooBigForMetered,
            meteredBudget: policy.classes[key.classIndex].meteredBytesPerDay
        )
        let index: Int
        if let free = freeGroups.popLast() {
            index = free
            groups[index] = state
            groupRules[index] = rule
        } else {
            index = groups.count
            groups.append(state)
            groupRules.append(rule)
            loudTimers.append(Heap())
            deadlineTimers.append(Heap())
            quietTimers.append(Heap())
        }
        groupIndex[key] = index
        return index
    }

    mutating func bucket(for key: BucketKey) -> Int {
        if let index = bucketIndex[key] { return index }
        let classIndex = groups[key.group].key.classIndex
        let owner: Int
        if let known = ownerSlot[key.owner] {
            owner = known
        } else {
            owner = ownerTurn.count
            ownerTurn.append(0)
            ownerSlot[key.owner] = owner
        }
        let info = BucketInfo(
            group: key.group,
            classIndex: classIndex,
            owner: key.owner,
            ownerSlot: owner,
            kind: key.kind,
            groupPosition: groups[key.group].buckets.count,
            classPosition: classes[classIndex].buckets.count
        )
        let index: Int
        if let free = freeBuckets.popLast() {
            index = free
            buckets[index] = BucketState()
            bucketInfo[index] = info
        } else {
            index = buckets.count
            buckets.append(BucketState())
            bucketInfo.append(info)
        }
        bucketIndex[key] = index
        groups[key.group].buckets.append(index)
        classes[classIndex].buckets.append(index)
        return index
    }

    /// A job left bucket `b` for good: the bucket is freed with its last job, and its group with
    /// its last bucket. Their heaps hold only stale items by then (the job was detached first).
    mutating func leave(bucket b: Int) {
        buckets[b].members -= 1
        guard buckets[b].members == 0 else { return }
        let info = bucketInfo[b]
        bucketIndex[BucketKey(group: info.group, owner: info.owner, kind: info.kind)] = nil
        if let moved = Self.swapRemove(at: info.groupPosition, from: &groups[info.group].buckets) {
            bucketInfo[moved].groupPosition = info.groupPosition
        }
        if let moved = Self.swapRemove(at: info.classPosition, from: &classes[info.classIndex].buckets) {
            bucketInfo[moved].classPosition = info.classPosition
        }
        // A parked lane is listed under its host; a fresh bucket here must not leave the old
        // entry behind, or a host that stays full collects one per bucket ever parked on it.
        for (host, lane) in buckets[b].lanes where lane.parked {
            parkedLanes[host]?.removeAll { $0 == b }
            if parkedLanes[host]?.isEmpty == true { parkedLanes[host] = nil }
        }
        buckets[b] = BucketState()
        freeBuckets.append(b)
        guard groups[info.group].buckets.isEmpty else { return }
        let g = info.group
        groupIndex[groups[g].key] = nil
        loudTimers[g] = Heap()
        deadlineTimers[g] = Heap()
        quietTimers[g] = Heap()
        freeGroups.append(g)
    }

    /// Removes `array[index]` by moving the last element into its place; returns the moved
    /// element, if one moved.
    static func swapRemove(at index: Int, from array: inout [Int]) -> Int? {
        let last = array.removeLast()
        guard index < array.count else { return nil }
        array[index] = last
        return last
    }

    mutating func addRunning(_ id: JobID, _ job: RunningJob) {
        running[id] = job
        classes[job.classIndex].running += 1
        runningByKind[job.kind, default: 0] += 1
        runningByOwner[job.owner, default: 0] += 1
        runningByHost[job.host, default: 0] += 1
    }

    static func decrement<Key: Hashable>(_ counts: inout [Key: Int], _ key: Key) {
        let left = counts[key, default: 0] - 1
        counts[key] = left > 0 ? left : nil
    }

    func queuedJob(_ e: SchedulerEntry) -> QueuedJob {
        let group = groups[bucketInfo[Int(e.bucket)].group]
        func date(_ t: Double) -> Date? { t.isNaN ? nil : Date(timeIntervalSinceReferenceDate: t) }
        return QueuedJob(
            id: e.id,
            owner: e.owner,
            kind: e.kind,
            className: policy.classes[group.key.classIndex].name,
            host: hostNames[Int(e.host)],
            constraints: group.key.constraints,
            notBefore: date(e.notBefore),
            backoffUntil: date(e.backoffUntil),
            deadline: date(e.deadline),
            onDeadline: e.onDeadline,
            expectedBytesDown: e.expectedDown >= 0 ? e.expectedDown : nil,
            expectedBytesUp: e.expectedUp >= 0 ? e.expectedUp : nil,
            deferrable: e.deferrableRequest
        )
    }
}
