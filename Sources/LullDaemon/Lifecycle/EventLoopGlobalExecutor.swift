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
            MultiThreadedEventLoopGroup.singleton.any().executor.enqueue(
                ExecutorJob(unsafeBitCast(job, to: UnownedJob.self))
            )
        } == 1 && installDelayed()
    }

    /// Timers too: a sleeping task wakes on a loop's timer instead of a libdispatch worker,
    /// which would try to lower its nice value for the task's priority and, without
    /// CAP_SYS_NICE, log "Failed to set thread priority" each time.
    private static func installDelayed() -> Bool {
        lull_take_over_delayed_global_jobs { nanoseconds, job in
            guard let job else { return }
            let unowned = unsafeBitCast(job, to: UnownedJob.self)
            let loop = MultiThreadedEventLoopGroup.singleton.any()
            loop.scheduleTask(in: .nanoseconds(Int64(clamping: nanoseconds))) {
                loop.executor.enqueue(ExecutorJob(unowned))
            }
        } == 1
    }
}
