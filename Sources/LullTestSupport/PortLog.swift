import Foundation

/// The host file a guest's virtio-serial port is appended to, read line by line as it grows.
public final class PortLog: @unchecked Sendable {
    public let path: String
    private var offset: UInt64 = 0
    private var pending = Data()

    public init(path: String) { self.path = path }

    /// The next complete line, or nil once `deadline` passes or `alive()` turns false with no
    /// line left. The file only grows while qemu runs, so this polls it.
    public func nextLine(until deadline: ContinuousClock.Instant, alive: () -> Bool) -> String? {
        while true {
            if let line = takeLine() { return line }
            let running = alive()
            readMore()
            if let line = takeLine() { return line }
            if !running || ContinuousClock.now >= deadline { return nil }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Every complete line written so far (after qemu has exited: everything it received).
    public func drain() -> [String] {
        readMore()
        var lines: [String] = []
        while let line = takeLine() { lines.append(line) }
        return lines
    }

    private func readMore() {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        try? handle.seek(toOffset: offset)
        let data = (try? handle.readToEnd()) ?? Data()
        offset += UInt64(data.count)
        pending.append(data)
    }

    private func takeLine() -> String? {
        guard let newline = pending.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
        pending.removeSubrange(pending.startIndex...newline)
        return line
    }
}
