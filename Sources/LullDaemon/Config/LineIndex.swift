import Foundation

/// Finds the line a key was written on, for error messages (the TOML parser does not keep it).
struct LineIndex {
    private let lines: [Substring]

    init(_ text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    func line(section: String?, key: String) -> Int? {
        var current: String?
        for (index, raw) in lines.enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") {
                current = line.trimmingCharacters(in: CharacterSet(charactersIn: "[] "))
                if section == nil, current == key { return index + 1 }
                continue
            }
            guard current == section, line.hasPrefix(key) else { continue }
            let rest = line.dropFirst(key.count).drop(while: { $0 == " " || $0 == "\t" })
            if rest.hasPrefix("=") { return index + 1 }
        }
        return nil
    }
}
