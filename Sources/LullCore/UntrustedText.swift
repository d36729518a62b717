/// Text a client chose (URLs, labels, paths, header values) that ends up in log lines, the
/// journal and other users' terminals. Control characters in it could end a log record early
/// and forge the next one, or move another user's cursor, so submissions refuse them and
/// whatever still reaches a log is escaped.
public enum UntrustedText {
    /// The first control character in `text` (C0, DEL or C1; a tab too unless `allowingTab`),
    /// with the UTF-8 offset it starts at.
    public static func firstControl(
        in text: String,
        allowingTab: Bool = false
    ) -> (scalar: Unicode.Scalar, offset: Int)? {
        var offset = 0
        for scalar in text.unicodeScalars {
            if isControl(scalar), !(allowingTab && scalar == "\t") { return (scalar, offset) }
            offset += UTF8.width(scalar)
        }
        return nil
    }

    /// `text` with each control character written as an escape (`\n`, `\r`, `\t`, `\0`,
    /// `\x1b`, `\u{85}`), so one record stays one line and no escape sequence reaches a terminal.
    public static func escaped(_ text: String) -> String {
        // Most text has none: one scan of the bytes, no copy.
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 }) else { return text }
        guard firstControl(in: text) != nil else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\0": result += "\\0"
            default:
                let hex = String(scalar.value, radix: 16)
                result += scalar.value < 0x80 ? "\\x" + (hex.count == 1 ? "0" + hex : hex) : "\\u{\(hex)}"
            }
        }
        return result
    }

    /// A control character's name in an error message: `U+001B`.
    public static func name(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
