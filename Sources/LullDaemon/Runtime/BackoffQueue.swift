import Foundation
import HeapModule
import LullCore

/// Queued jobs waiting out a retry backoff, earliest first. Removal is lazy, as in `ReadyQueue`.
struct BackoffQueue {
    private struct Entry: Comparable {
        var time: Date
        var id: JobID
        static func < (lhs: Entry, rhs: Entry) -> Bool { (lhs.time, lhs.id) < (rhs.time, rhs.id) }
    }

    private var heap = Heap<Entry>()
    private var members: [JobID: Date] = [:]

    var earliest: Date? {
        mutating get {
            dropStale()
            return heap.min?.time
        }
    }

    mutating func insert(_ id: JobID, at time: Date) {
        members[id] = time
        heap.insert(Entry(time: time, id: id))
    }

    mutating func remove(_ id: JobID) {
        members[id] = nil
    }

    /// Removes and returns every job whose time has come.
    mutating func popDue(at now: Date) -> [JobID] {
        var due: [JobID] = []
        dropStale()
        while let top = heap.min, top.time <= now {
            heap.removeMin()
            if members[top.id] == top.time {
                members[top.id] = nil
                due.append(top.id)
            }
            dropStale()
        }
        return due
    }

    private mutating func dropStale() {
        while let top = heap.min, members[top.id] != top.time { heap.removeMin() }
    }
}
