/// Fitting text into terminal columns. Lines longer than the window would wrap and break the
/// in-place redraw, so every live line is cut to the width.
enum TextLayout {
    static func fit(_ text: String, _ width: Int) -> String {
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
        guard width > 0 else { return "" }
        guard text.count > width else { return text }
        return width == 1 ? "…" : "…" + String(text.suffix(width - 1))
    }
}
