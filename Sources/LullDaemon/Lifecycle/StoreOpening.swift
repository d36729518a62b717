import Logging
import LullCore
import LullStore
import LullTransfer
import NIOPosix
import Synchronization

/// Opens the store off the event loops, migrating its schema if it is older than this lulld.
/// A migration over millions of jobs on slow storage can outlast `TimeoutStartSec=`, and a start
/// killed mid-migration rolls it back and starts it again at the restart: for ever. So while one
/// runs, lulld says so in its status and asks the service manager for more time for as long as
/// SQLite shows it working (`MigrationProgress`).
enum StoreOpening {
    static func open(
        path: String,
        notifier: SystemdNotifier,
        logger: Logger,
        didCommit: @escaping @Sendable ([JobEvent]) -> Void
    ) async throws -> SQLiteJobStore {
        let watch = Watch(notifier: notifier, logger: logger)
        // A migration that failed ends here, without saying it migrated.
        defer { watch.cancel() }
        let observer = StoreMigrationObserver(began: watch.began, tick: watch.tick, ended: watch.ended)
        return try await NIOThreadPool.singleton.runIfActive {
            try SQLiteJobStore(path: path, migrating: observer, didCommit: didCommit)
        }
    }

    /// The ticks of a migration, and the task that extends the start timeout while they move.
    private final class Watch: Sendable {
        /// How often the extension is renewed while the ticks move (each asks for three).
        static let period = Duration.seconds(5)
        let notifier: SystemdNotifier
        let logger: Logger
        private let ticks = Mutex(0)
        private let extender = Mutex<Task<Void, Never>?>(nil)

        init(notifier: SystemdNotifier, logger: Logger) {
            self.notifier = notifier
            self.logger = logger
        }

        @Sendable func began(_ migrations: [String]) {
            logger.notice(
                "migrating the store: \(migrations.joined(separator: ", "))",
                metadata: ["migrations": "\(migrations.count)"]
            )
            notifier.status("migrating the store (\(migrations.count) steps)")
            // At once, not from the task: a short migration may end before the task runs.
            notifier.extendTimeout(by: Self.period * 3)
            let task = Task { [self] in
                try? await notifier.sleeper.sleep(for: Self.period)
                await SystemdNotifier.extendWhileProgressing(
                    every: Self.period,
                    progress: { self.ticks.withLock { $0 } },
                    sleeper: notifier.sleeper
                ) { notifier.extendTimeout(by: $0) }
            }
            extender.withLock { $0 = task }
        }

        @Sendable func tick() { ticks.withLock { $0 += 1 } }

        func cancel() { extender.withLock { $0.take() }?.cancel() }

        @Sendable func ended() {
            guard let task = extender.withLock({ $0.take() }) else { return }
            task.cancel()
            notifier.status("store migrated; restoring the queue")
            logger.notice("store migrated", metadata: ["ticks": "\(ticks.withLock { $0 })"])
        }
    }
}
