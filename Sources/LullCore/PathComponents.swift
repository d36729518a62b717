/// A path's components as the kernel resolves them: the bytes between slashes. Compared as
/// `Character`s, a combining mark after a slash joins the slash, and `/tmp/\u{301}x` would not
/// be in `/tmp`; split into arrays, every submission's paths cost more than the rest of its checks.
enum PathComponents {
    /// Calls `body` with each component in order, the empty ones included (before a leading
    /// slash, between two slashes, after a trailing one), until it returns false.
    static func forEach(in path: String, _ body: (Substring.UTF8View) -> Bool) {
        let bytes = Substring(path).utf8
        var start = bytes.startIndex
        while true {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
            guard body(bytes[start..<end]), end < bytes.endIndex else { return }
            start = bytes.index(after: end)
        }
    }

    /// Whether a component is `..`.
    static func hasParent(_ path: String) -> Bool {
        var found = false
        forEach(in: path) { component in
            found = component.elementsEqual("..".utf8)
            return !found
        }
        return found
    }

    /// Whether `path` is absolute, without empty or `.` components and without a trailing slash:
    /// already in the form `PrivateDirectories` compares, as nearly every submitted path is.
    static func isPlain(_ path: String) -> Bool {
        guard path != "/" else { return true }
        var first = true
        var plain = true
        forEach(in: path) { component in
            defer { first = false }
            plain = first ? component.isEmpty : !component.isEmpty && !component.elementsEqual(".".utf8)
            return plain
        }
        return plain && !path.isEmpty
    }
}
