import Foundation
import Logging
import LullCore
import LullStore

@testable import LullDaemon

/// A real store in a directory of its own, for tests of the dispatcher over it; `remove()`
/// deletes both.
struct TemporaryStore {
    let directory: URL
    let store: SQLiteJobStore

    init(_ name: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-\(name)-\(UUID().uuidString.prefix(8))"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try SQLiteJobStore(path: directory.appendingPathComponent("lull.sqlite").path)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

extension Dispatcher {
    /// The real dispatcher over `store` with the test's engines, no pressure readings, and the
    /// real clocks unless the test gives its own.
    static func forTest(
        store: any JobStore,
        engines: [JobKind: any TransferEngine],
        policy: SchedulingPolicy = .defaults,
        world: WorldSnapshot = .assumed,
        progressInterval: TimeInterval = 1,
        clock: any LullClock = SystemClock(),
        monotonic: any MonotonicClock = SystemMonotonicClock(),
        sleeper: any Sleeper = TaskSleeper()
    ) -> Dispatcher {
        Dispatcher(
            store: store,
            engines: engines,
            policy: policy,
            world: world,
            pressure: NoPressureGauge(),
            metrics: DaemonMetrics(),
            progressInterval: progressInterval,
            clock: clock,
            monotonic: monotonic,
            sleeper: sleeper,
            logger: Logger(label: "lull.test")
        )
    }
}
