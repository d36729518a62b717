import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// HTTP/1.1 over the Unix control socket. Each connection is served by its own task; requests
/// on a connection are answered in order. Bodies are capped before they are buffered, and one
/// misbehaving client only ever costs its own connection.
struct ControlServer: Sendable {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    let router: ControlRouter
    let logger: Logger
    /// Called after a request whose body reached `largeBodyBytes` was answered and its buffers
    /// freed: decoding and answering a large batch grows the heap, which keeps it otherwise.
    var largeRequestAnswered: @Sendable () -> Void = {}
    /// Called as each request's head arrives.
    var requestArrived: @Sendable () -> Void = {}
    static let largeBodyBytes = 16 << 10

    /// How each accepted connection is set up: its read deadline, and the caps on who may hold how many.
    struct Admission: Sendable {
        var readTimeout: TimeAmount
        var connections: ConnectionLimit
        var logger: Logger
    }

    /// Binds `path` (or adopts an already-listening socket) and returns the listening channel.
    static func bind(
        path: String,
        admission: Admission,
        on group: any EventLoopGroup
    ) async throws -> NIOAsyncChannel<(Connection, PeerCredentials)?, Never> {
        try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: false) { channel in
                Self.initialize(channel, admission)
            }
    }

    /// Serves connections from an already-bound listening socket file descriptor (socket activation).
    static func adopt(
        descriptor: CInt,
        admission: Admission,
        on group: any EventLoopGroup
    ) async throws -> NIOAsyncChannel<(Connection, PeerCredentials)?, Never> {
        try await ServerBootstrap(group: group).bind(NIOBSDSocket.Handle(descriptor)) { channel in
            Self.initialize(channel, admission)
        }
    }

    private static func initialize(
        _ channel: any Channel,
        _ admission: Admission
    ) -> EventLoopFuture<(Connection, PeerCredentials)?> {
        PeerCredentials.of(channel).flatMapThrowing { peer in
            let connections = admission.connections
            let refusal = connections.opened(by: peer.uid)
            channel.closeFuture.whenComplete { _ in connections.closed(by: peer.uid, admitted: refusal == nil) }
            if let refusal {
                try refuse(channel, peer: peer, refusal, logger: admission.logger)
                return nil
            }
            // Built by hand for the decoder's buffer limit: after a CONNECT or an Upgrade
            // request the parser stops, and every later byte would otherwise be kept.
            try channel.pipeline.syncOperations.addHandler(HTTPResponseEncoder())
            try channel.pipeline.syncOperations.addHandler(
                ByteToMessageHandler(HTTPRequestDecoder(), maximumBufferSize: Self.decoderBufferLimit)
            )
            try channel.pipeline.syncOperations.addHandler(ControlProtocolErrorHandler())
            try channel.pipeline.syncOperations.addHandler(RequestReadDeadline(timeout: admission.readTimeout))
            try channel.pipeline.syncOperations.addHandler(WriteStallDeadline(timeout: admission.readTimeout))
            return (try Connection(wrappingChannelSynchronously: channel), peer)
        }.flatMapError { _ in
            // No credentials, no service: drop the connection rather than guess who it is.
            channel.close().map { nil }
        }
    }

    /// The most bytes the request decoder holds undecoded. A request's head is limited well below
    /// it (80 KiB); bodies pass through as they are decoded.
    static let decoderBufferLimit = 1 << 20

    /// Answers `429 too_many_connections` as soon as the connection is active, and closes it.
    private static func refuse(
        _ channel: any Channel,
        peer: PeerCredentials,
        _ refusal: ConnectionLimit.Refusal,
        logger: Logger
    ) throws {
        if refusal.first {
            logger.notice(
                "refusing control connections: too many open; uid \(peer.uid) (pid \(peer.pid)) was told: \(refusal.body(uid: peer.uid).error.message)",
                metadata: [
                    "peer_uid": "\(peer.uid)", "peer_pid": "\(peer.pid)",
                    "error": "\(refusal.body(uid: peer.uid).error.message)",
                ]
            )
        }
        try channel.syncOptions?.setOption(.autoRead, value: false)
        try channel.pipeline.syncOperations.addHandler(RefusedConnection(refusal, uid: peer.uid))
    }

    /// Accepts connections until the listener closes or the task is cancelled.
    func serve(_ listener: NIOAsyncChannel<(Connection, PeerCredentials)?, Never>) async throws {
        try await withThrowingDiscardingTaskGroup { group in
            try await listener.executeThenClose { inbound in
                for try await accepted in inbound {
                    guard let (connection, peer) = accepted else { continue }
                    let executor = EventLoopTaskExecutor(connection.channel.eventLoop)
                    group.addTask(executorPreference: executor) {
                        // Held for the task's life: its jobs refer to it by an unowned reference.
                        defer { withExtendedLifetime(executor) {} }
                        await self.handle(connection, peer: peer)
                    }
                }
            }
        }
    }

    private func handle(_ connection: Connection, peer: PeerCredentials) async {
        do {
            try await connection.executeThenClose { inbound, outbound in
                var parts = inbound.makeAsyncIterator()
                while let part = try await parts.next() {
                    guard case .head(let head) = part else { continue }
                    requestArrived()
                    var bodyBytes = 0
                    let keepAlive = try await respond(
                        to: head,
                        parts: &parts,
                        outbound: outbound,
                        peer: peer,
                        channel: connection.channel,
                        bodyBytes: &bodyBytes
                    )
                    if bodyBytes >= Self.largeBodyBytes { largeRequestAnswered() }
                    if !keepAlive { return }
                }
            }
        } catch {
            logger.debug("control connection ended", metadata: ["error": "\(error)", "peer_uid": "\(peer.uid)"])
        }
    }

    /// Reads one request's body and answers it. Returns whether the connection may carry another request.
    private func respond(
        to head: HTTPRequestHead,
        parts: inout NIOAsyncChannelInboundStream<HTTPServerRequestPart>.AsyncIterator,
        outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>,
        peer: PeerCredentials,
        channel: any Channel,
        bodyBytes: inout Int
    ) async throws -> Bool {
        // After a CONNECT or an Upgrade request the parser reads no further (the decoder's buffer
        // limit bounds what it keeps meanwhile). CONNECT means nothing here; an Upgrade is
        // ignored, as HTTP/1.1 allows (`curl --http2` asks for h2c), and the request answered,
        // but the connection can carry nothing after it.
        if head.method == .CONNECT {
            try await write(
                .error(
                    APIError(.notImplemented, code: "not_supported", "lulld's control socket has no use for CONNECT")
                ),
                head: head,
                keepAlive: false,
                outbound: outbound
            )
            return false
        }
        var head = head
        if head.headers.contains(name: "upgrade") { head.headers.replaceOrAdd(name: "connection", value: "close") }
        // Read per request: a reload may change it.
        let maxRequestBytes = router.validators.maxRequestBytes
        let declared = head.headers.first(name: "content-length").flatMap(Int.init)
        if let declared, declared > maxRequestBytes {
            // Answer before reading: a well-behaved client (curl with Expect: 100-continue) stops sending.
            try await write(
                .error(tooLarge(declared, limit: maxRequestBytes)),
                head: head,
                keepAlive: false,
                outbound: outbound
            )
            return false
        }
        if head.headers.first(name: "expect")?.lowercased() == "100-continue" {
            try await outbound.write(.head(HTTPResponseHead(version: head.version, status: .continue)))
        }
        var body = ByteBuffer()
        var overflow = false
        reading: while let part = try await parts.next() {
            switch part {
            case .body(var chunk):
                if body.readableBytes + chunk.readableBytes > maxRequestBytes {
                    overflow = true
                    break reading
                }
                body.writeBuffer(&chunk)
            case .end:
                break reading
            case .head:
                throw ControlProtocolViolation()
            }
        }
        if overflow {
            try await write(
                .error(tooLarge(nil, limit: maxRequestBytes)),
                head: head,
                keepAlive: false,
                outbound: outbound
            )
            return false
        }
        bodyBytes = body.readableBytes
        let request = ControlRequest(head: head, body: body, peer: peer)
        let response = await router.handle(request)
        if case .stream(let contentType, let producer) = response {
            try await stream(
                contentType: contentType,
                head: head,
                producer: producer,
                channel: channel,
                outbound: outbound
            )
            return false
        }
        if case .file(let status, let contentType, let body, let extra) = response {
            return try await send(
                body,
                status: status,
                contentType: contentType,
                headers: extra,
                head: head,
                outbound: outbound
            )
        }
        try await write(response, head: head, keepAlive: head.isKeepAlive, outbound: outbound)
        return head.isKeepAlive
    }

    /// Sends a file's range a chunk at a time; each write waits while the client is behind, so
    /// only the chunk in hand is in memory. A file that shrank meanwhile cannot fill the length
    /// announced: the connection is closed, and the client sees a short body.
    private func send(
        _ body: FileBody,
        status: HTTPResponseStatus,
        contentType: String,
        headers extra: [(String, String)],
        head: HTTPRequestHead,
        outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws -> Bool {
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: contentType)
        headers.add(name: "content-length", value: String(body.length))
        for (name, value) in extra { headers.add(name: name, value: value) }
        if !head.isKeepAlive { headers.add(name: "connection", value: "close") }
        try await outbound.write(.head(HTTPResponseHead(version: head.version, status: status, headers: headers)))
        var sent: Int64 = 0
        while sent < body.length {
            let chunk = try await body.chunk(at: sent)
            guard chunk.readableBytes > 0 else { return false }
            sent += Int64(chunk.readableBytes)
            try await outbound.write(.body(.byteBuffer(chunk)))
        }
        try await outbound.write(.end(nil))
        return head.isKeepAlive
    }

    private func tooLarge(_ declared: Int?, limit: Int) -> APIError {
        let size = declared.map { "is \($0) bytes" } ?? "is too large"
        return APIError(
            .payloadTooLarge,
            code: "too_large",
            "request body \(size); the limit is \(limit) bytes (limits.max_request_bytes)",
            field: "body"
        )
    }

    private func write(
        _ response: ControlResponse,
        head: HTTPRequestHead,
        keepAlive: Bool,
        outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws {
        guard case .complete(let status, let contentType, let data, let extra) = response else { return }
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: contentType)
        headers.add(name: "content-length", value: String(data.count))
        for (name, value) in extra { headers.add(name: name, value: value) }
        if !keepAlive { headers.add(name: "connection", value: "close") }
        // One write, one flush, one syscall for the whole response.
        try await outbound.write(contentsOf: [
            .head(HTTPResponseHead(version: head.version, status: status, headers: headers)),
            .body(.byteBuffer(ByteBuffer(bytes: data))),
            .end(nil),
        ])
    }

    /// Streams until the producer ends, the client hangs up or the server stops (the task is
    /// cancelled), whichever comes first.
    private func stream(
        contentType: String,
        head: HTTPRequestHead,
        producer: @escaping @Sendable (StreamWriter) async throws -> Void,
        channel: any Channel,
        outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws {
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: contentType)
        headers.add(name: "cache-control", value: "no-store")
        headers.add(name: "connection", value: "close")
        try await outbound.write(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers)))
        let writer = StreamWriter { text in try await outbound.write(.body(.byteBuffer(ByteBuffer(string: text)))) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await producer(writer) }
            group.addTask {
                // The client hanging up closes the channel; that ends the stream. Waiting on a
                // future ignores cancellation, so a stopping server closes the channel itself:
                // otherwise an open event stream would keep the daemon from exiting.
                await withTaskCancellationHandler {
                    try? await channel.closeFuture.get()
                } onCancel: {
                    channel.close(promise: nil)
                }
            }
            _ = try await group.next()
            group.cancelAll()
        }
        try? await outbound.write(.end(nil))
    }
}

struct ControlProtocolViolation: Error {}
