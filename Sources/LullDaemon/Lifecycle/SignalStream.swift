import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// Process signals as an async sequence, delivered through dispatch sources (never inside a
/// signal handler), in arrival order.
final class SignalStream {
    let stream: AsyncStream<CInt>
    private let sources: [any DispatchSourceSignal]

    init(_ signals: [CInt]) {
        let (stream, continuation) = AsyncStream<CInt>.makeStream()
        // An explicit QoS: inherited from the main thread it is user-interactive, and its worker
        // would try to lower its nice value (refused without CAP_SYS_NICE, logged each time).
        let queue = DispatchQueue(label: "lull.signals", qos: .utility)
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
        self.stream = stream
        self.sources = sources
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
