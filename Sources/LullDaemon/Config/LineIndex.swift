import Foundation

/// Finds the line a key was written on, for error messages (the TOML parser does not keep it).
struct LineIndex {
    private let lines: [Substring]

    init(_ text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// `occurrence`: which table of that name, counting from 0, for an array of tables
    /// (`[[limits.bandwidth]]`).
    func line(section: String?, key: String, occurrence: Int = 0) -> Int? {
        var current: String?
        var seen = -1
        for (index, raw) in lines.enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") {
                current = Self.header(line)
                if current == section { seen += 1 }
                if section == nil, current == key { return index + 1 }
                continue
            }
            guard current == section, seen == occurrence, line.hasPrefix(key) else { continue }
            let rest = line.dropFirst(key.count).drop(while: { $0 == " " || $0 == "\t" })
            if rest.hasPrefix("=") { return index + 1 }
        }
        return nil
    }

    /// The name in `[name]` or `[[name]]`, without what follows the brackets (a comment).
    private static func header(_ line: String) -> String {
        let name = line.drop(while: { $0 == "[" }).prefix(while: { $0 != "]" })
        return name.trimmingCharacters(in: .whitespaces)
    }
}
