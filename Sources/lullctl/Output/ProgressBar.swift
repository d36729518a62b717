/// A text progress bar, with eighth-blocks when the terminal speaks UTF-8 and `#`/`.` when not.
struct ProgressBar {
    var width: Int
    var unicode: Bool

    /// `fraction` from 0 to 1; nil (size unknown) draws an empty bar.
    func render(_ fraction: Double?) -> String {
        guard width > 0 else { return "" }
        let filled = max(0, min(1, fraction ?? 0)) * Double(width)
        let whole = Int(filled)
        guard unicode else {
            return String(repeating: "#", count: whole) + String(repeating: ".", count: width - whole)
        }
        let partials = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
        let eighths = Int((filled - Double(whole)) * 8)
        let partial = whole < width ? partials[eighths] : ""
        let used = whole + (partial.isEmpty ? 0 : 1)
        return String(repeating: "█", count: whole) + partial + String(repeating: "░", count: width - used)
    }
}
