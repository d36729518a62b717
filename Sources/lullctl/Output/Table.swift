/// Plain aligned columns for a terminal; the last column is never padded.
struct Table {
    var headers: [String]
    var rows: [[String]] = []

    init(_ headers: String...) { self.headers = headers }

    mutating func add(_ row: String...) { rows.append(row) }

    func render() -> String {
        let all = ([headers] + rows).map { $0.map(TextLayout.printable) }
        var widths = Array(repeating: 0, count: headers.count)
        for row in all {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], TextLayout.columns(cell)) }
        }
        // Widths count terminal columns; `padding(toLength:)` would count UTF-16 units and cut an emoji in half.
        return all.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : TextLayout.pad(cell, widths[index])
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
