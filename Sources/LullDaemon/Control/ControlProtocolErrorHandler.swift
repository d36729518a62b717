import Foundation
import LullAPI
import NIOCore
import NIOHTTP1

/// Answers bytes that are not valid HTTP/1.1 with a JSON error that says what was wrong
/// (`400 malformed_request`, or `431 headers_too_large` past the parser's header limit),
/// then lets the connection close. NIO's own error handler sends an empty 400; a client that
/// got a request wrong deserves to be told which part.
final class ControlProtocolErrorHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// A response head went out and its end has not: an error answer would interleave with it.
    private var responseInProgress = false
    /// The connection already got its error answer; the decoder may report more as it closes.
    private var answered = false

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        // The decoder closes the channel right after this returns: answer now or never.
        if !responseInProgress && !answered {
            answered = true
            let (status, body) = Self.answer(to: parserError)
            let data = (try? WireJSON.encoder().encode(body)) ?? Data()
            var headers = HTTPHeaders()
            headers.add(name: "content-type", value: "application/json")
            headers.add(name: "content-length", value: String(data.count))
            headers.add(name: "connection", value: "close")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: data)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.code >= 200:
            responseInProgress = true
        case .end:
            responseInProgress = false
        default:
            break
        }
        context.write(data, promise: promise)
    }

    static func answer(to error: HTTPParserError) -> (HTTPResponseStatus, APIErrorBody) {
        if case .headerOverflow = error {
            return (.requestHeaderFieldsTooLarge, APIErrorBody(
                code: "headers_too_large",
                message: "the request line and headers exceed 80 KiB; send fewer or shorter headers",
                field: "headers"))
        }
        return (.badRequest, APIErrorBody(
            code: "malformed_request",
            message: "not a valid HTTP/1.1 request: \(error.debugDescription); see docs/api.md for the protocol"))
    }
}
