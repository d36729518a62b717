import LullCore
import Synchronization

/// Specs decoded lately, keyed by their stored JSON: the same text always decodes to the same
/// spec, so a hit is exact whichever job it came from, and a reused row id cannot mislead it.
/// Bounded: when full it starts over, which costs a decode per job in the next few changes.
final class DecodedSpecs: Sendable {
    let capacity: Int
    private let entries = Mutex<[String: JobSpec]>([:])

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The spec `json` holds: from memory, or decoded by `decode` and kept.
    func spec(_ json: String, decode: (String) throws -> JobSpec) throws -> JobSpec {
        if let known = entries.withLock({ $0[json] }) { return known }
        let spec = try decode(json)
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[json] = spec
        }
        return spec
    }

    var count: Int { entries.withLock { $0.count } }
}
