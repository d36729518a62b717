/// Rows read from the store for one answer: at most the limit asked for, and fewer once the
/// bytes of the rows read reach `byteBudget`, so that one answer's memory stays bounded however
/// large each row is (a run job's output tail, a push's response body, a long `argv`). At least
/// one row is read whatever its size.
public struct StorePage<Element: Sendable>: Sendable {
    public var items: [Element]
    /// The read stopped at the byte budget before the limit: the rows after the last may follow.
    public var cutShort: Bool
    /// Where the read stopped when that is past the last item: rows it read and left out
    /// (events a newer lulld wrote) are behind the next page's cursor too.
    public var readThrough: Int64?

    /// Bytes of stored rows one page reads at most (plus the row that reaches it).
    public static var byteBudget: Int { 4 << 20 }

    public init(_ items: [Element], cutShort: Bool = false, readThrough: Int64? = nil) {
        self.items = items
        self.cutShort = cutShort
        self.readThrough = readThrough
    }
}
