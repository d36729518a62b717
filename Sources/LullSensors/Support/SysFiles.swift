import Foundation
import LullKernelFiles

/// The sensors' reads of /proc and /sys files, through `KernelFile`, as trimmed text and
/// numbers.
enum SysFiles {
    /// The file's content without surrounding whitespace, or nil when it cannot be read or is
    /// not UTF-8.
    ///
    /// Trimmed as bytes: the sampler reads several files a second while someone watches, and
    /// Foundation's `trimmingCharacters` goes through UTF-16 (see performance.md, *Sampler*).
    static func read(_ path: String) -> String? {
        guard let bytes = KernelFile.readBytes(path) else { return nil }
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }),
            let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(validating: bytes[first...last], as: UTF8.self)
    }

    static func readInt(_ path: String) -> Int64? {
        read(path).flatMap { Int64($0) }
    }

    static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }

    static func list(_ directory: String) -> [String] {
        KernelFile.names(in: directory).sorted()
    }

    /// `KEY=value` lines (uevent files) as a dictionary.
    static func keyValues(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            guard let eq = line.firstIndex(of: "=") else { continue }
            result[String(line[..<eq])] = String(line[line.index(after: eq)...])
        }
        return result
    }

    static func join(_ base: String, _ parts: String...) -> String {
        var path = base
        for part in parts {
            if !path.hasSuffix("/") { path += "/" }
            path += part
        }
        return path
    }
}
