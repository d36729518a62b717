import GRDB
import GRDBSQLite

/// Shows that a migration is working while it runs: SQLite calls back every so many steps of
/// its virtual machine, and each call is a tick. A service manager's start timeout can then be
/// extended for as long as the ticks move (a store of millions of jobs on an SD card takes
/// longer than `TimeoutStartSec=`), while a migration stuck waiting on the disk still times out.
enum MigrationProgress {
    /// SQLite virtual-machine steps between two ticks: a few milliseconds of work.
    static let stepsPerTick: Int32 = 100_000

    /// Runs `body` with `tick` called as the writer connection works.
    static func observing<T>(
        _ pool: DatabasePool,
        tick: @escaping @Sendable () -> Void,
        _ body: () throws -> T
    ) rethrows -> T {
        let context = Unmanaged.passRetained(Ticker(tick))
        defer { context.release() }
        pool.writeWithoutTransaction { db in
            sqlite3_progress_handler(
                db.sqliteConnection,
                stepsPerTick,
                { context in
                    Unmanaged<Ticker>.fromOpaque(context!).takeUnretainedValue().tick()
                    return 0
                },
                context.toOpaque()
            )
        }
        defer {
            pool.writeWithoutTransaction { db in sqlite3_progress_handler(db.sqliteConnection, 0, nil, nil) }
        }
        return try body()
    }

    private final class Ticker: Sendable {
        let tick: @Sendable () -> Void
        init(_ tick: @escaping @Sendable () -> Void) { self.tick = tick }
    }
}

/// What the opener of a store is told while its schema is migrated.
public struct StoreMigrationObserver: Sendable {
    /// The migrations about to run, in order.
    public var began: @Sendable ([String]) -> Void
    /// Called again and again while they run (see `MigrationProgress`).
    public var tick: @Sendable () -> Void
    /// They ran.
    public var ended: @Sendable () -> Void

    public init(
        began: @escaping @Sendable ([String]) -> Void,
        tick: @escaping @Sendable () -> Void,
        ended: @escaping @Sendable () -> Void
    ) {
        self.began = began
        self.tick = tick
        self.ended = ended
    }
}
