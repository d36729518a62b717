import HeapModule

/// Queued jobs waiting for a slot, oldest submission first.
/// Removal is lazy (a membership set) so cancel and pause stay O(1) at a million jobs.
public struct ReadyQueue: Sendable {
    private var heap = Heap<JobID>()
    private var members = Set<JobID>()

    public init() {}

    public init<S: Sequence>(_ ids: S) where S.Element == JobID {
        members = Set(ids)
        heap = Heap(members)
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }

    public func contains(_ id: JobID) -> Bool { members.contains(id) }

    public mutating func insert(_ id: JobID) {
        if members.insert(id).inserted { heap.insert(id) }
    }

    public mutating func remove(_ id: JobID) {
        members.remove(id)
        dropStaleTop()
    }

    public mutating func popFirst() -> JobID? {
        dropStaleTop()
        guard let id = heap.popMin() else { return nil }
        members.remove(id)
        dropStaleTop()
        return id
    }

    public func first() -> JobID? { heap.min }

    /// Keeps the invariant that the heap's minimum, if any, is a live member.
    private mutating func dropStaleTop() {
        while let top = heap.min, !members.contains(top) { heap.removeMin() }
    }
}
