import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP proxy on 127.0.0.1 in front of a test server that can cut every open connection on
/// command: a network failure in the middle of a transfer, with both ends left running. Pointed
/// at a Unix socket it is also a loopback TCP front for the control socket (for HTTP tools that
/// cannot speak AF_UNIX).
public final class CuttingProxy: Sendable {
    private let listener: any Channel
    private let connections: NIOLockedValueBox<[any Channel]>
    public let port: Int

    public static func start(forwardingTo targetPort: Int) async throws -> CuttingProxy {
        try await start(forwardingTo: try SocketAddress(ipAddress: "127.0.0.1", port: targetPort))
    }

    public static func start(forwardingTo target: SocketAddress) async throws -> CuttingProxy {
        let connections = NIOLockedValueBox<[any Channel]>([])
        let group = MultiThreadedEventLoopGroup.singleton
        let listener = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { inbound in
                connections.withLockedValue { $0.append(inbound) }
                return ClientBootstrap(group: inbound.eventLoop)
                    .connect(to: target)
                    .flatMap { outbound in
                        connections.withLockedValue { $0.append(outbound) }
                        let (left, right) = Glue.pair()
                        return inbound.pipeline.addHandler(left).flatMap {
                            outbound.pipeline.addHandler(right)
                        }.flatMap {
                            // Only now that the glue is in place may the client's bytes flow.
                            inbound.setOption(.autoRead, value: true)
                        }
                    }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return CuttingProxy(listener: listener, connections: connections)
    }

    private init(listener: any Channel, connections: NIOLockedValueBox<[any Channel]>) {
        self.listener = listener
        self.connections = connections
        port = listener.localAddress?.port ?? 0
    }

    /// Closes every connection passing through, in both directions.
    public func cutAll() {
        let open = connections.withLockedValue { list -> [any Channel] in
            defer { list.removeAll() }
            return list
        }
        for channel in open { channel.close(promise: nil) }
    }

    public func stop() async {
        cutAll()
        try? await listener.close()
    }

    /// Two handlers that pass each other's reads along, with backpressure (read when writable).
    private final class Glue: ChannelDuplexHandler, @unchecked Sendable {
        typealias InboundIn = NIOAny
        typealias OutboundIn = NIOAny
        typealias OutboundOut = NIOAny

        private var partner: Glue?
        private var context: ChannelHandlerContext?
        private var pendingRead = false

        static func pair() -> (Glue, Glue) {
            let first = Glue()
            let second = Glue()
            first.partner = second
            second.partner = first
            return (first, second)
        }

        func handlerAdded(context: ChannelHandlerContext) { self.context = context }
        func handlerRemoved(context: ChannelHandlerContext) {
            self.context = nil
            partner = nil
        }

        private func partnerWrite(_ data: NIOAny) { context?.write(data, promise: nil) }
        private func partnerFlush() { context?.flush() }
        private func partnerClose() { context?.close(promise: nil) }
        private func partnerBecameWritable() {
            if pendingRead {
                pendingRead = false
                context?.read()
            }
        }
        private var partnerWritable: Bool { context?.channel.isWritable ?? false }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) { partner?.partnerWrite(data) }
        func channelReadComplete(context: ChannelHandlerContext) { partner?.partnerFlush() }
        func channelInactive(context: ChannelHandlerContext) { partner?.partnerClose() }
        func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
        func channelWritabilityChanged(context: ChannelHandlerContext) {
            if context.channel.isWritable { partner?.partnerBecameWritable() }
        }
        func read(context: ChannelHandlerContext) {
            if partner?.partnerWritable ?? false {
                context.read()
            } else {
                pendingRead = true
            }
        }
    }
}
