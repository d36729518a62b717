import ArgumentParser
import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// Terminal-related signals delivered as an async stream through dispatch sources, so a live
/// view learns of a resize (SIGWINCH) or of being told to stop (SIGINT, SIGTERM, SIGHUP when
/// the SSH session goes away) in its own loop, where it can restore the screen before exiting.
enum TerminalSignal: Sendable {
    case resized
    case stop(Int32)
}

struct TerminalSignals {
    /// The signals' default actions are replaced for the life of the process.
    static func stream(stopOn stopSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]) -> AsyncStream<TerminalSignal> {
        AsyncStream { continuation in
            let queue = DispatchQueue(label: "lullctl.signals")
            var sources: [any DispatchSourceSignal] = []
            for (number, signal) in [(SIGWINCH, TerminalSignal.resized)]
                + stopSignals.map({ ($0, TerminalSignal.stop($0)) })
            {
                Glibc.signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { continuation.yield(signal) }
                source.resume()
                sources.append(source)
            }
            let owned = SourceList(sources)
            continuation.onTermination = { _ in owned.cancel() }
        }
    }

    /// Takes `signal` again with its default action, once a live view has restored the screen:
    /// the shell then sees a command killed by it (130 for ctrl-c, 143 for SIGTERM), so a script
    /// does not take an interrupted view for success and a loop around it stops too. Returns
    /// only if the signal cannot be delivered, with the exit code that says the same
    /// (128 + signal) for the caller to throw.
    static func endProcess(by signal: Int32) -> ExitCode {
        fflush(nil)
        Glibc.signal(signal, SIG_DFL)
        // This runs on a pool thread, where libdispatch blocks most signals: raised there, the
        // signal would stay pending and the process would leave by the caller's exit instead.
        var only = sigset_t()
        sigemptyset(&only)
        sigaddset(&only, signal)
        pthread_sigmask(SIG_UNBLOCK, &only, nil)
        raise(signal)
        return ExitCode(128 + signal)
    }
}
