import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// Bytes typed on stdin, as an async stream (for a terminal in raw mode: one key at a time).
enum KeyboardInput {
    static func stream() -> AsyncStream<UInt8> {
        AsyncStream { continuation in
            let source = DispatchSource.makeReadSource(
                fileDescriptor: STDIN_FILENO,
                queue: DispatchQueue(label: "lullctl.keys")
            )
            source.setEventHandler {
                var buffer = [UInt8](repeating: 0, count: 64)
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                guard count > 0 else {
                    // End of input (or an error): stop reading rather than spin on a readable EOF.
                    source.cancel()
                    continuation.finish()
                    return
                }
                for byte in buffer[..<count] { continuation.yield(byte) }
            }
            source.resume()
            let owned = SourceList([source])
            continuation.onTermination = { _ in owned.cancel() }
        }
    }
}
