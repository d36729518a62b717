import Foundation

/// The part of `GET /v1/samples` that `top` draws. Private to lullctl until the wire type lands
/// in LullAPI.
struct TopSamples: Decodable {
    var samples: [TopSample]
}

struct TopSample: Decodable {
    var cpuUtilisation: Double?
    var memoryAvailableBytes: Int64?
    var memoryTotalBytes: Int64?
    var load1m: Double?

    enum CodingKeys: String, CodingKey {
        case cpuUtilisation = "cpu_utilisation"
        case memoryAvailableBytes = "memory_available_bytes"
        case memoryTotalBytes = "memory_total_bytes"
        case load1m = "load_1m"
    }

    /// Share of memory in use (0–1).
    var memoryUsed: Double? {
        guard let available = memoryAvailableBytes, let total = memoryTotalBytes, total > 0 else { return nil }
        return 1 - Double(available) / Double(total)
    }
}
