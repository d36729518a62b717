import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// Process signals as an async sequence, delivered through dispatch sources (never inside a
/// signal handler), in arrival order.
/// Signals taken over later (`take`) join the same stream.
final class SignalStream {
    let stream: AsyncStream<CInt>
    private let continuation: AsyncStream<CInt>.Continuation
    // An explicit QoS: inherited from the main thread it is user-interactive, and its worker
    // would try to lower its nice value (refused without CAP_SYS_NICE, logged each time).
    private let queue = DispatchQueue(label: "lull.signals", qos: .utility)
    private var sources: [any DispatchSourceSignal] = []

    init(_ signals: [CInt]) {
        (stream, continuation) = AsyncStream<CInt>.makeStream()
        take(signals)
    }

    func take(_ signals: [CInt]) {
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            let continuation = continuation
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
