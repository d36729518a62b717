/// Directories the daemon sees differently from its clients. Under systemd's `PrivateTmp=`,
/// the service's `/tmp` and `/var/tmp` are bind mounts of a directory of its own
/// (`/tmp/systemd-private-…-lulld.service-…/tmp`): a job's file there would be invisible to the
/// owner and deleted when the service stops, yet the job would report success.
public struct PrivateDirectories: Sendable, Equatable {
    public var paths: [String]

    public init(_ paths: [String] = []) {
        self.paths = paths
    }

    /// Reads the daemon's `/proc/self/mountinfo`: every mount whose root is one of systemd's
    /// private directories.
    public init(mountInfo: String) {
        var paths: [String] = []
        for line in mountInfo.split(separator: "\n") {
            // id parent major:minor root mount-point options ...
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 4 else { continue }
            let root = Self.unescaped(fields[3])
            guard root.contains("/systemd-private-") else { continue }
            let mountPoint = Self.unescaped(fields[4])
            if !paths.contains(mountPoint) { paths.append(mountPoint) }
        }
        self.paths = paths.sorted()
    }

    /// The private directory `path` lies in, if any. `//tmp/x` and `/./tmp/x` are `/tmp/x`.
    public func containing(_ path: String) -> String? {
        guard !paths.isEmpty else { return nil }
        let path =
            Self.isPlain(path) ? path : "/" + path.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
        return paths.first { directory in
            path == directory || path.hasPrefix(directory + "/")
        }
    }

    /// Whether `path` is already in the form `containing` compares: absolute, without empty or
    /// `.` components and without a trailing slash. Every submission's paths are checked, and
    /// nearly all are; splitting and joining them cost more than the rest of the check.
    static func isPlain(_ path: String) -> Bool {
        var previous = UInt8(ascii: "/")
        var component = 0  // bytes since the last slash, -1 once one is not a dot
        for (offset, byte) in path.utf8.enumerated() {
            if offset == 0 { guard byte == UInt8(ascii: "/") else { return false } }
            if byte == UInt8(ascii: "/") {
                if offset > 0 && (previous == UInt8(ascii: "/") || component == 1) { return false }
                component = 0
            } else if byte == UInt8(ascii: "."), component >= 0 {
                component += 1
            } else {
                component = -1
            }
            previous = byte
        }
        return !path.isEmpty && (path.utf8.count == 1 || (previous != UInt8(ascii: "/") && component != 1))
    }

    /// mountinfo writes space, tab, newline and backslash as octal escapes (`\040`).
    static func unescaped(_ field: Substring) -> String {
        guard field.contains("\\") else { return String(field) }
        var bytes: [UInt8] = []
        var utf8 = Array(field.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "\\"), utf8.count >= 3,
                let value = UInt8(String(decoding: utf8.prefix(3), as: UTF8.self), radix: 8)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
