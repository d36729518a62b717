import LullCore
import Synchronization

/// Specs decoded lately, keyed by their stored JSON: the same text always decodes to the same
/// spec, so a hit is exact whichever job it came from, and a reused row id cannot mislead it.
/// Bounded: when full it starts over, which costs a decode per job in the next few changes; and
/// only specs up to `largest` bytes are kept (a spec may be near a MiB, the request limit), so
/// it holds at most `capacity` × `largest` bytes of text and as much again decoded.
final class DecodedSpecs: Sendable {
    let capacity: Int
    let largest: Int
    private let entries = Mutex<[String: JobSpec]>([:])

    init(capacity: Int, largest: Int) {
        self.capacity = capacity
        self.largest = largest
    }

    /// The spec `json` holds: from memory, or decoded by `decode` and kept.
    func spec(_ json: String, decode: (String) throws -> JobSpec) throws -> JobSpec {
        guard json.utf8.count <= largest else { return try decode(json) }
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
