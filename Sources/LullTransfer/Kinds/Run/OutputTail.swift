/// The newest `capacity` bytes of a stream, for the result's `output_tail`.
struct OutputTail {
    let capacity: Int
    private var buffer: [UInt8] = []

    init(capacity: Int) { self.capacity = capacity }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard capacity > 0 else { return }
        buffer.append(contentsOf: bytes.suffix(capacity))
        // Trimmed in batches, so appending stays amortized O(1) per byte.
        if buffer.count > 2 * capacity { buffer.removeFirst(buffer.count - capacity) }
    }

    /// The tail as text; bytes that are not UTF-8 (or a character cut at the start) become U+FFFD.
    var text: String { String(decoding: buffer.suffix(capacity), as: UTF8.self) }
}
