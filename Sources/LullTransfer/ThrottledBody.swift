import AsyncHTTPClient
import LullCore
import NIOCore

/// A request body paced by the job's bandwidth limits: each buffer is handed on in slices of at
/// most `slice` bytes, each once the throttle admits it. The slices share the buffer's storage,
/// and the next buffer is not asked for until the last slice went, so a limited upload reads its
/// file no faster than it sends it.
struct ThrottledBody<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer

    /// Small enough that a limit moves bytes in even steps rather than a file chunk's bursts,
    /// large enough that each step is worth a write.
    static var slice: Int { 256 << 10 }

    let base: Base
    let throttle: any TransferThrottle
    let watchdog: TransferWatchdog

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let throttle: any TransferThrottle
        let watchdog: TransferWatchdog
        var current = ByteBuffer()

        mutating func next() async throws -> ByteBuffer? {
            while current.readableBytes == 0 {
                guard let buffer = try await base.next() else { return nil }
                current = buffer
            }
            let count = Swift.min(current.readableBytes, ThrottledBody.slice)
            let watchdog = self.watchdog
            try await throttle.admit(count) { watchdog.touch() }
            return current.readSlice(length: count)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), throttle: throttle, watchdog: watchdog)
    }
}

extension HTTPClientRequest.Body {
    /// `base` as a streamed body, paced by `throttle` when the job has one.
    static func stream<Base: AsyncSequence & Sendable>(
        _ base: Base,
        length: Length,
        throttle: (any TransferThrottle)?,
        watchdog: TransferWatchdog
    ) -> Self where Base.Element == ByteBuffer {
        guard let throttle else { return .stream(base, length: length) }
        return .stream(ThrottledBody(base: base, throttle: throttle, watchdog: watchdog), length: length)
    }
}
