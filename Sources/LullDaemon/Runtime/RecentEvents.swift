import DequeModule
import LullCore

/// The newest events as committed, so that followers who keep up read them from memory instead
/// of reading and decoding them again from the store. It answers only for a cursor it can
/// answer completely: the events it holds have consecutive sequence numbers and end at the
/// newest published, so "after `seq`" is in here whenever `seq` is no older than the event
/// before the first held. Any other cursor (a follower that fell behind, or one from before
/// start-up) is the store's to answer.
///
/// Bounded by count and by bytes: a run job's `succeeded` event carries up to 64 KiB of output
/// and a fetch's its response headers, so a count alone could hold hundreds of MiB.
struct RecentEvents {
    let capacity: Int
    let byteBudget: Int
    private var events: Deque<JobEvent> = []
    private var sizes: Deque<Int> = []
    private var bytes = 0

    init(capacity: Int, byteBudget: Int) {
        self.capacity = capacity
        self.byteBudget = byteBudget
    }

    /// Adds events published in sequence order. A gap (which the append-only log does not make,
    /// but a cursor must never be answered across) starts the tail afresh.
    mutating func append(_ published: [JobEvent]) {
        guard capacity > 0 else { return }
        for event in published {
            if let last = events.last, event.seq != last.seq + 1 {
                guard event.seq > last.seq else { continue }
                events.removeAll(keepingCapacity: true)
                sizes.removeAll(keepingCapacity: true)
                bytes = 0
            }
            let size = Self.size(of: event)
            events.append(event)
            sizes.append(size)
            bytes += size
            while events.count > capacity || bytes > byteBudget, !events.isEmpty {
                events.removeFirst()
                bytes -= sizes.removeFirst()
            }
        }
    }

    /// Roughly what an event holds: a fixed part and its strings.
    static func size(of event: JobEvent) -> Int {
        guard let detail = event.detail else { return 128 }
        var size = 256 + (detail.message?.utf8.count ?? 0)
        if let failure = detail.failure { size += failure.code.utf8.count + failure.message.utf8.count }
        if let result = detail.result {
            size += 512 + (result.outputTail?.utf8.count ?? 0) + (result.responseBody?.utf8.count ?? 0)
            for (name, value) in result.responseHeaders ?? [:] { size += name.utf8.count + value.utf8.count + 32 }
            for text in [result.sha256, result.path, result.etag, result.lastModified, result.uploadURL] {
                size += text?.utf8.count ?? 0
            }
        }
        return size
    }

    /// Up to `limit` events after `seq` that `owner` may see (all for nil), or nil when the tail
    /// does not reach back to `seq`.
    func after(_ seq: Int64, owner: OwnerID?, limit: Int) -> [JobEvent]? {
        guard let first = events.first, seq >= first.seq - 1 else { return nil }
        var page: [JobEvent] = []
        var index = Int(max(0, seq - first.seq + 1))
        while index < events.count, page.count < limit {
            let event = events[index]
            if owner == nil || event.owner == owner { page.append(event) }
            index += 1
        }
        return page
    }
}
