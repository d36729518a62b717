import Foundation
import LullAPI
import NIOCore

/// The whole pipeline of a connection refused by `ConnectionLimit`: as soon as the channel is
/// active it answers `429 too_many_connections` and closes. The request is never read (the
/// channel does not read at all), so a refused connection holds its descriptor only for as long
/// as the answer takes to write.
final class RefusedConnection: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let answer: ByteBuffer
    private var sent = false

    init(_ refusal: ConnectionLimit.Refusal, uid: UInt32) {
        answer = refusal.response(uid: uid)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { send(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        send(context)
        context.fireChannelActive()
    }

    private func send(_ context: ChannelHandlerContext) {
        guard !sent else { return }
        sent = true
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
        context.writeAndFlush(NIOAny(answer), promise: written)
    }
}

extension ConnectionLimit.Refusal {
    /// What the refused client is told, in words that name the cap, its key and what to do.
    func body(uid: UInt32) -> APIErrorBody {
        let message =
            switch cap {
            case .perUid(let limit):
                "uid \(uid) already has \(limit) connections open to lulld, the most one user may hold "
                    + "(limits.max_connections_per_uid); close idle ones (a script that opens a connection per call "
                    + "and never closes it?) and try again, or ask an admin to raise the limit"
            case .nonRoot(let limit):
                "lulld already serves \(limit) connections of non-root users, the most it takes at once "
                    + "(limits.max_connections, at most half its open-file limit); try again shortly, or ask an admin "
                    + "to find the program holding them (ss -xp) or to raise the limit"
            }
        return APIErrorBody(code: "too_many_connections", message: message)
    }

    /// The whole `429` answer as bytes: it goes out before the request is read, through no HTTP handlers.
    func response(uid: UInt32) -> ByteBuffer {
        let data = (try? WireJSON.encoder().encode(body(uid: uid))) ?? Data()
        var buffer = ByteBuffer()
        buffer.writeString(
            "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\n"
                + "content-length: \(data.count)\r\nconnection: close\r\n\r\n"
        )
        buffer.writeBytes(data)
        return buffer
    }
}
