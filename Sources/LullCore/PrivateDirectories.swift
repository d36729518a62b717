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
    /// Compared as bytes, as the kernel resolves it: a combining mark after a slash makes one
    /// `Character` with it, and `/tmp/\u{301}x` is still a file in `/tmp`.
    public func containing(_ path: String) -> String? {
        guard !paths.isEmpty else { return nil }
        let normal = PathComponents.isPlain(path) ? Array(path.utf8) : Self.normalized(path)
        return paths.first { directory in
            normal.starts(with: directory.utf8)
                && (normal.count == directory.utf8.count || normal[directory.utf8.count] == UInt8(ascii: "/"))
        }
    }

    /// `path` absolute, without empty or `.` components and without a trailing slash.
    static func normalized(_ path: String) -> [UInt8] {
        var normal: [UInt8] = []
        PathComponents.forEach(in: path) { component in
            if !component.isEmpty && !component.elementsEqual(".".utf8) {
                normal.append(UInt8(ascii: "/"))
                normal += component
            }
            return true
        }
        return normal.isEmpty ? [UInt8(ascii: "/")] : normal
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
