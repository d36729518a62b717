/// Reads whole responses from a `UnixSocketStream`, one after another: bytes that arrive past
/// the end of one response are kept for the next (a keep-alive connection).
package struct HTTPResponseReader {
    private var pending: [UInt8] = []
    private var buffer: [UInt8]

    package init(bufferSize: Int = 64 * 1024) {
        buffer = [UInt8](repeating: 0, count: bufferSize)
    }

    /// The next response's status, fields (by lower-cased name) and body; nil when the peer
    /// closed before sending a byte of it (a keep-alive connection the daemon dropped while idle,
    /// which may simply be opened again).
    package mutating func next(
        from stream: UnixSocketStream
    ) throws(HTTPResponseReadError) -> (status: Int, headers: [String: String], body: [UInt8])? {
        while true {
            do throws(HTTPFramingError) {
                if let response = try HTTPFraming.response(in: pending) {
                    let body = Array(pending[response.body])
                    pending.removeFirst(response.end)
                    return (response.status, response.headers, body)
                }
            } catch {
                throw .framing(error)
            }
            let count: Int
            do throws(UnixSocketError) {
                count = try stream.receive(into: &buffer)
            } catch  where error.peerClosed {
                count = 0  // a reset is the peer closing too
            } catch {
                throw .socket(error)
            }
            guard count > 0 else {
                if pending.isEmpty { return nil }
                throw .closedMidAnswer
            }
            pending += buffer[..<count]
        }
    }
}

/// Why a response could not be read in full.
package enum HTTPResponseReadError: Error, Equatable, CustomStringConvertible {
    case socket(UnixSocketError)
    case framing(HTTPFramingError)
    /// The peer closed the connection with part of a response sent.
    case closedMidAnswer

    package var description: String {
        switch self {
        case .socket(let error): "\(error)"
        case .framing(let error): "\(error)"
        case .closedMidAnswer: "the daemon closed the connection before answering in full"
        }
    }
}
