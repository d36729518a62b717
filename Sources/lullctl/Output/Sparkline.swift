/// A one-line chart of recent values from 0 to 1, newest on the right; a missing value is a gap.
struct Sparkline {
    var unicode: Bool

    func render(_ values: [Double?], width: Int) -> String {
        let levels: [Character] =
            unicode ? ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"] : ["_", ".", ":", "-", "=", "+", "*", "#"]
        let recent = values.suffix(width)
        let drawn = recent.map { value -> Character in
            guard let value else { return " " }
            let level = Int((max(0, min(1, value)) * Double(levels.count - 1)).rounded())
            return levels[level]
        }
        return String(repeating: " ", count: max(0, width - drawn.count)) + String(drawn)
    }
}
