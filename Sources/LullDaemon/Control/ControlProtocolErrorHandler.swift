import Foundation
import LullAPI
import NIOCore
import NIOHTTP1

/// Answers bytes that are not valid HTTP/1.1 with a JSON error that says what was wrong
/// (`400 malformed_request`, or `431 headers_too_large` past the parser's header limit),
/// then lets the connection close. NIO's own error handler sends an empty 400; a client that
/// got a request wrong deserves to be told which part. A pipelining client whose bad bytes
/// follow good requests gets their answers first and the error last: sent at once, the error
/// would read as the answer to a request that is still being carried out.
final class ControlProtocolErrorHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// A response head went out and its end has not: an error answer would interleave with it.
    private var responseInProgress = false
    private var owed = OwedAnswers()
    /// The connection already got its error answer, or has one waiting for the answers owed
    /// before it; the decoder may report more errors as the connection closes.
    private var answered = false
    private var heldError: HTTPParserError?
    /// An answer said `Connection: close`: no error answer may follow it.
    private var closing = false

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is ByteToMessageDecoderError.PayloadTooLargeError {
            // Bytes past a request the parser stopped at (CONNECT, Upgrade): the connection's
            // task may be busy with a stream and not reading, so nobody else would close it.
            context.close(promise: nil)
            return
        }
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        if !answered && !closing {
            answered = true
            if responseInProgress || !owed.none {
                heldError = parserError
            } else {
                send(parserError, context: context)
            }
        }
        // The connection's task still reads the requests before the error, answers them and
        // then meets the error, which ends it and closes the connection.
        context.fireErrorCaught(error)
    }

    private func send(_ error: HTTPParserError, context: ChannelHandlerContext) {
        let (status, body) = Self.answer(to: error)
        let data = (try? WireJSON.encoder().encode(body)) ?? Data()
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: "application/json")
        headers.add(name: "content-length", value: String(data.count))
        headers.add(name: "connection", value: "close")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
            promise: nil
        )
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: data)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        owed.read(unwrapInboundIn(data))
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        owed.wrote(part)
        switch part {
        case .head(let head) where head.status.code >= 200:
            responseInProgress = true
            // The connection ends with this answer: an error after it would follow a response
            // that already said so.
            if !head.isKeepAlive {
                closing = true
                heldError = nil
            }
        case .end:
            responseInProgress = false
        default:
            break
        }
        context.write(data, promise: promise)
        if let error = heldError, owed.none, !responseInProgress {
            heldError = nil
            send(error, context: context)
        }
    }

    static func answer(to error: HTTPParserError) -> (HTTPResponseStatus, APIErrorBody) {
        if case .headerOverflow = error {
            return (
                .requestHeaderFieldsTooLarge,
                APIErrorBody(
                    code: "headers_too_large",
                    message: "the request line and headers exceed 80 KiB; send fewer or shorter headers",
                    field: "headers"
                )
            )
        }
        return (
            .badRequest,
            APIErrorBody(
                code: "malformed_request",
                message: "not a valid HTTP/1.1 request: \(error.debugDescription); see docs/api.md for the protocol"
            )
        )
    }
}
