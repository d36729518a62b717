import CLullSys

/// Fitting text into terminal columns. Lines longer than the window would wrap and break the
/// in-place redraw, so every live line is cut to the width — measured in the columns a terminal
/// gives each character (a CJK character or an emoji takes two, a combining accent none), not in
/// characters.
enum TextLayout {
    /// `text` with every control character written out (`\n`, `\u{1B}`). Labels, paths, URLs
    /// and error messages come from other users and remote servers; printed raw to root's
    /// terminal, a newline forges a row, an escape sequence drives the terminal, and a
    /// bidirectional override or isolate (U+202A–U+202E, U+2066–U+2069) shows the rest of the
    /// row reversed.
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where isControl(scalar): result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || (0x202A...0x202E).contains(scalar.value)
            || (0x2066...0x2069).contains(scalar.value)
    }

    /// The columns `text` takes on a terminal.
    static func columns(_ text: String) -> Int {
        // Plain ASCII, nearly every line: one column per byte.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        return text.reduce(0) { $0 + columns($1) }
    }

    /// A character's columns by the C library's Unicode width table (`wcwidth`, which needs the
    /// UTF-8 character type lullctl sets at start). A cluster is as wide as its widest scalar:
    /// an accent adds nothing to its letter, a skin tone nothing to its emoji. Two kinds of
    /// cluster are drawn as emoji, two columns, though their scalars are narrow: a flag (two
    /// regional indicators) and a symbol asked for in emoji style (U+FE0F, as in ❤️).
    static func columns(_ character: Character) -> Int {
        var widest = 0
        for scalar in character.unicodeScalars {
            if scalar.value == 0xFE0F || (0x1F1E6...0x1F1FF).contains(scalar.value) { widest = 2 }
            let width = Int(lull_wcwidth(scalar.value))
            // Unknown to the table (or no UTF-8 locale): assume the common case, one column.
            widest = max(widest, width < 0 ? 1 : width)
        }
        return widest
    }

    static func fit(_ text: String, _ width: Int) -> String {
        let text = printable(text)
        guard width > 0 else { return "" }
        guard columns(text) > width else { return text }
        return prefix(text, columns: width - 1) + "…"
    }

    static func pad(_ text: String, _ width: Int) -> String {
        let fitted = fit(text, width)
        return fitted + String(repeating: " ", count: max(0, width - columns(fitted)))
    }

    /// Keeps the end of a path or URL, where the file name is, when it must be shortened.
    static func fitTail(_ text: String, _ width: Int) -> String {
        let text = printable(text)
        guard width > 0 else { return "" }
        guard columns(text) > width else { return text }
        return "…" + String(suffix(text, columns: width - 1))
    }

    /// The longest start of `text` within `limit` columns (a wide character that would straddle
    /// the limit is left out).
    private static func prefix(_ text: String, columns limit: Int) -> Substring {
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            used += columns(text[index])
            if used > limit { break }
            end = text.index(after: index)
        }
        return text[..<end]
    }

    private static func suffix(_ text: String, columns limit: Int) -> Substring {
        var used = 0
        var start = text.endIndex
        while start > text.startIndex {
            let previous = text.index(before: start)
            used += columns(text[previous])
            if used > limit { break }
            start = previous
        }
        return text[start...]
    }
}
