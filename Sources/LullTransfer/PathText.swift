/// A path's directory and last name, by its text alone. Foundation's `URL(fileURLWithPath:)`
/// asks the filesystem whether the path is a directory (a `stat` on whatever thread it runs,
/// event loops included) and is slow besides; the paths here are absolute and checked.
enum PathText {
    /// The directory holding `path`: "/" for a name at the root, "." for a bare name.
    /// Trailing slashes do not count, as for `URL.deletingLastPathComponent`.
    static func directory(of path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed == "/" ? "/" : "." }
        let parent = trimmingTrailingSlashes(String(trimmed[..<slash]))
        return parent.isEmpty ? "/" : parent
    }

    /// The last name in `path`, trailing slashes left out.
    static func name(of path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    private static func trimmingTrailingSlashes(_ path: String) -> String {
        var text = Substring(path)
        while text.count > 1, text.last == "/" { text = text.dropLast() }
        return String(text)
    }
}
