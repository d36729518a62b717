/// Fitting text into terminal columns. Lines longer than the window would wrap and break the
/// in-place redraw, so every live line is cut to the width.
enum TextLayout {
    /// `text` with every control character written out (`\n`, `\u{1B}`). Labels, paths, URLs
    /// and error messages come from other users and remote servers; printed raw to root's
    /// terminal, a newline forges a row and an escape sequence drives the terminal.
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
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    static func fit(_ text: String, _ width: Int) -> String {
        let text = printable(text)
        guard width > 0 else { return "" }
        guard text.count > width else { return text }
        return width == 1 ? "…" : String(text.prefix(width - 1)) + "…"
    }

    static func pad(_ text: String, _ width: Int) -> String {
        let fitted = fit(text, width)
        return fitted + String(repeating: " ", count: max(0, width - fitted.count))
    }

    /// Keeps the end of a path or URL, where the file name is, when it must be shortened.
    static func fitTail(_ text: String, _ width: Int) -> String {
        let text = printable(text)
        guard width > 0 else { return "" }
        guard text.count > width else { return text }
        return width == 1 ? "…" : "…" + String(text.suffix(width - 1))
    }
}
