import CLullSys
import NIOCore
import NIOPosix

/// Runs Swift Concurrency's global executor on NIO's singleton event loops, so the control
/// socket, the store's callbacks and the transfers share a few threads instead of hopping to a
/// second pool, and no libdispatch worker thread arms its once-a-second monitor timer in an
/// idle daemon.
///
/// NIO has this (`NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor`),
/// but it finds the runtime's hook with `dlsym`, which fails without a word in a binary built
/// with `--static-swift-stdlib` (the toolchain links the runtime with `--exclude-libs ALL`): the
/// binaries `make install` ships then ran on the default pool. Here the linker resolves the
/// hook (CLullSys), in static and dynamic builds alike.
public enum EventLoopGlobalExecutor {
    /// Installs the hook; false if another was installed first. Call once, before any task starts.
    @discardableResult
    public static func install() -> Bool {
        lull_take_over_global_executor { job in
            guard let job else { return }
            // `any()` prefers the loop the caller runs on, so a task resumed from a loop stays
            // there; the loop is its own executor and queues the job without a closure.
            MultiThreadedEventLoopGroup.singleton.any().executor.enqueue(ExecutorJob(unsafeBitCast(job, to: UnownedJob.self)))
        } == 1
    }
}
