/// Values from text in `/proc/meminfo`'s format: a line each, `Name:`, blanks, a decimal number
/// and an optional unit (` kB`). It is read at every shared file sync and every sample, so it is
/// scanned as bytes: splitting it into `Character`s and `Substring`s cost about 70 times more.
public enum MeminfoLines {
    /// The value of each of `names` (without the colon), in the order asked, in bytes where the
    /// line says `kB`; nil for a name the text lacks or whose number does not read (on the first
    /// line of that name, the one that counts).
    public static func values(of names: [String], in text: String) -> [UInt64?] {
        var text = text
        return text.withUTF8 { values(of: names, in: $0) }
    }

    public static func values(of names: [String], in bytes: [UInt8]) -> [UInt64?] {
        bytes.withUnsafeBufferPointer { values(of: names, in: $0) }
    }

    public static func values(of names: [String], in bytes: UnsafeBufferPointer<UInt8>) -> [UInt64?] {
        var found = [UInt64?](repeating: nil, count: names.count)
        var read = [Bool](repeating: false, count: names.count)
        var unread = names.count
        var start = 0
        while start < bytes.count, unread > 0 {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
            defer { start = end + 1 }
            var colon = start
            while colon < end, bytes[colon] != UInt8(ascii: ":") { colon += 1 }
            guard colon < end,
                let index = names.firstIndex(where: { $0.utf8.elementsEqual(bytes[start..<colon]) }),
                !read[index]
            else { continue }
            found[index] = number(in: bytes[(colon + 1)..<end])
            read[index] = true
            unread -= 1
        }
        return found
    }

    /// Blanks, digits, then nothing, `kB` (× 1024) or another unit (taken as it is), each after
    /// blanks; blanks and a carriage return may end the line.
    private static func number(in field: Slice<UnsafeBufferPointer<UInt8>>) -> UInt64? {
        func isBlank(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
        }
        var end = field.endIndex
        while end > field.startIndex, isBlank(field[end - 1]) { end -= 1 }
        var index = field.startIndex
        while index < end, isBlank(field[index]) { index += 1 }
        var value: UInt64 = 0
        let digitsStart = index
        while index < end, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(field[index]) {
            let (tens, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, carried) = tens.addingReportingOverflow(UInt64(field[index] - UInt8(ascii: "0")))
            guard !overflowed, !carried else { return nil }
            value = sum
            index += 1
        }
        guard index > digitsStart, index == end || isBlank(field[index]) else { return nil }
        while index < end, isBlank(field[index]) { index += 1 }
        guard field[index..<end].elementsEqual("kB".utf8) else { return value }
        let (bytes, overflowed) = value.multipliedReportingOverflow(by: 1024)
        return overflowed ? nil : bytes
    }
}
