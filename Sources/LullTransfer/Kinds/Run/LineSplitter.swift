/// Cuts a byte stream into lines for a sink that takes one line at a time (the journal): a
/// line longer than `maxBytes` goes in pieces, and what is left at the end goes as a last line.
struct LineSplitter {
    let sink: @Sendable (Substring) -> Void
    let maxBytes: Int
    private var pending: [UInt8] = []

    init(_ sink: @escaping @Sendable (Substring) -> Void, maxBytes: Int = 4096) {
        self.sink = sink
        self.maxBytes = maxBytes
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                emit()
            } else {
                pending.append(byte)
                if pending.count >= maxBytes { emit() }
            }
        }
    }

    mutating func flush() {
        if !pending.isEmpty { emit() }
    }

    private mutating func emit() {
        sink(Substring(String(decoding: pending, as: UTF8.self)))
        pending.removeAll(keepingCapacity: true)
    }
}
