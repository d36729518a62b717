import LullCore

/// What a running command uses, as the API shows it.
public struct UsageView: Codable, Sendable, Equatable {
    public var cpuSeconds: Double
    /// Percent of one CPU over the last progress interval (absent before the first).
    public var cpuPercent: Double?
    public var memoryBytes: Int64
    /// Storage bytes read and written so far; absent where the kernel does not count them.
    public var ioReadBytes: Int64?
    public var ioWriteBytes: Int64?

    enum CodingKeys: String, CodingKey {
        case cpuSeconds = "cpu_seconds"
        case cpuPercent = "cpu_percent"
        case memoryBytes = "memory_bytes"
        case ioReadBytes = "io_read_bytes"
        case ioWriteBytes = "io_write_bytes"
    }

    public init(_ usage: CommandUsage) {
        cpuSeconds = (usage.cpuSeconds * 1000).rounded() / 1000
        cpuPercent = usage.cpuPercent.map { ($0 * 10).rounded() / 10 }
        memoryBytes = usage.memoryBytes
        ioReadBytes = usage.ioReadBytes
        ioWriteBytes = usage.ioWriteBytes
    }
}

extension UsageView: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { json in
            json.member("cpu_seconds", cpuSeconds)
            json.member("cpu_percent", cpuPercent)
            json.member("memory_bytes", memoryBytes)
            json.member("io_read_bytes", ioReadBytes)
            json.member("io_write_bytes", ioWriteBytes)
        }
    }
}
