import GRDB

/// A store that a newer lulld has migrated is refused, not opened: this binary does not know
/// what the newer migrations changed, and writing to it could lose or corrupt jobs.
enum StoreVersionCheck {
    /// Throws when `database` holds a migration `migrator` does not know.
    static func refuseNewer(_ database: DatabasePool, migrator: DatabaseMigrator, path: String) throws {
        let known = migrator.migrations
        let applied = try database.read { db -> [String] in
            guard try db.tableExists("grdb_migrations") else { return [] }
            // Rows in the order they were applied: the last one is the store's newest.
            return try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
        }
        guard let newest = applied.last(where: { !known.contains($0) }) else { return }
        throw StoreVersionError(path: path, storeNewest: newest, binaryNewest: known.last ?? "none")
    }
}

/// The store was written by a newer lulld (a downgrade); the message says what to do.
public struct StoreVersionError: Error, CustomStringConvertible, Sendable {
    public var path: String
    /// The newest migration the store has, which this binary does not know.
    public var storeNewest: String
    /// The newest migration this binary knows.
    public var binaryNewest: String

    public var description: String {
        """
        the store \(path) was written by a newer lulld: its newest migration is "\(storeNewest)", \
        and this lulld knows up to "\(binaryNewest)". Install the newer lulld again, or move the \
        state directory aside (its jobs stay there) to start with an empty store
        """
    }
}
