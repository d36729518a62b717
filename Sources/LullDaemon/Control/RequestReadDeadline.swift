import NIOCore
import NIOHTTP1

/// Closes a control connection whose next request is not complete within `timeout` of the
/// connection opening or of the last answer it was owed: a slowloris client trickling a header
/// or a body, or an idle keep-alive connection. Trickling does not buy time: bytes do not
/// restart the clock. While the daemon owes an answer (a long event stream included) the client
/// owes nothing and no deadline runs — also when a pipelining client sent its next request
/// before the previous answer went out.
final class RequestReadDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let timeout: TimeAmount
    /// When the connection closes unless its request has arrived; nil while the daemon answers.
    private var deadline: NIODeadline?
    /// The one timer. Answers only move `deadline`: a timer set and cancelled per request cost a
    /// `timerfd_settime` per request. When the timer finds the deadline moved on, it sets itself
    /// again for the new one; when it finds none, it stops until the next answer.
    private var timer: Scheduled<Void>?
    private var owed = OwedAnswers()

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        owed.read(part)
        if case .end = part { deadline = nil }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        owed.wrote(part)
        // All answered: the client has `timeout` for its next request on this connection.
        if case .end = part, owed.none { arm(context) }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext) {
        let deadline = NIODeadline.now() + timeout
        self.deadline = deadline
        if timer == nil { schedule(at: deadline, context) }
    }

    private func schedule(at deadline: NIODeadline, _ context: ChannelHandlerContext) {
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            timer = nil
            guard let deadline = self.deadline else { return }
            if deadline <= .now() {
                context.close(promise: nil)
            } else {
                schedule(at: deadline, context)
            }
        }
    }

    private func stop() {
        timer?.cancel()
        timer = nil
        deadline = nil
    }
}
