#if canImport(Glibc)
import Glibc
#endif
import Dispatch

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
            for (number, signal) in [(SIGWINCH, TerminalSignal.resized)] + stopSignals.map({ ($0, TerminalSignal.stop($0)) }) {
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
}
