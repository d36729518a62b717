import CLullSys
import LullCore
import NIOPosix
import Synchronization

/// Gives the heap's free pages back to the system after a crowd of connections has gone, and
/// after a run of large requests (a script submitting thousands of jobs in batches) is over.
/// glibc keeps freed memory in its arenas for reuse, so without this the daemon's resident size
/// stays at its highest for good. The trim walks the whole heap, so it runs on NIO's thread
/// pool, never on an event loop, and one at a time: asks while one is running are dropped.
final class HeapTrimmer: Sendable {
    private let pool: NIOThreadPool
    private let running = Atomic<Bool>(false)
    private let pending = Mutex<Task<Void, Never>?>(nil)
    private let onTrim: @Sendable () -> Void

    /// - Parameter onTrim: called after each trim (for tests and logs).
    init(pool: NIOThreadPool = .singleton, onTrim: @escaping @Sendable () -> Void = {}) {
        self.pool = pool
        self.onTrim = onTrim
    }

    /// Trims once `period` has passed without another call: one trim after a burst, not one
    /// per request while it lasts (a trim locks each arena in turn as it walks it).
    func trimWhenQuiet(for period: Duration, sleeper: any Sleeper) {
        pending.withLock { pending in
            pending?.cancel()
            pending = Task { [self] in
                do { try await sleeper.sleep(for: period) } catch { return }
                trim()
            }
        }
    }

    func trim() {
        guard running.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else { return }
        pool.submit { _ in
            _ = lull_trim_heap()
            self.running.store(false, ordering: .releasing)
            self.onTrim()
        }
    }
}
