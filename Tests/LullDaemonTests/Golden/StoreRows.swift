import Foundation
import GRDB
import LullTestSupport

/// A store's rows as text, read with plain SQL rather than the store's own code: what the
/// columns hold on disk. One `table[key].column = value` line per column.
enum StoreRows {
    /// Columns whose JSON `JSONEncoder` wrote (member order differs per process): all sorted.
    static let encoderJSON: Set<String> = ["result", "failure", "resume", "detail"]

    static func text(of path: String) throws -> String {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            var lines: [String] = []
            let migrations = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
            lines += migrations.map { "migration \($0)" }
            for (table, key) in [("jobs", "id"), ("events", "seq"), ("fetch_validators", "url")] {
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY \(key)") {
                    let id = row[key].map { "\($0)" } ?? "?"
                    for (column, value) in row {
                        lines.append("\(table)[\(id)].\(column) = \(try Self.value(value, column: column))")
                    }
                }
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }

    private static func value(_ value: DatabaseValue, column: String) throws -> String {
        switch value.storage {
        case .null: return "NULL"
        case .int64(let integer): return "\(integer)"
        case .double(let double): return "real \(double)"
        case .blob(let data): return "blob " + data.map { String(format: "%02x", $0) }.joined()
        case .string(let text):
            let sortedUnder: [[String]]? =
                switch column {
                case "spec": [["headers"]]
                case _ where encoderJSON.contains(column): [[]]
                default: nil
                }
            guard let sortedUnder else { return "text " + text }
            return "json "
                + String(decoding: try JSONMemberOrder.sorting(Array(text.utf8), under: sortedUnder), as: UTF8.self)
        }
    }
}
