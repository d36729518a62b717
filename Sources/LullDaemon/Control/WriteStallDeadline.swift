import NIOCore

/// Closes a control connection whose client has stopped reading its answers for `timeout`: the
/// socket stays full (the channel unwritable) all that while. Such a client would otherwise hold
/// its connection slot, the answer in flight (a page of jobs can be megabytes) and the requests
/// it pipelined behind it for as long as it liked, since no request deadline runs while the
/// daemon owes an answer. A follower of the event stream that stops reading is closed the same
/// way.
final class WriteStallDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let timeout: TimeAmount
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            timer?.cancel()
            timer = nil
        } else if timer == nil {
            timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
                timer = nil
                if !context.channel.isWritable { context.close(promise: nil) }
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }
}
