import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP/1.1 server on 127.0.0.1 for tests, able to misbehave on purpose: cut a response
/// after N bytes, stall, or answer a scripted status (500, 429 + Retry-After, ...). It honours
/// `Range`/`If-Range`, answers `If-None-Match` with 304, accepts request bodies (hashing them as
/// they stream, so gigabyte uploads cost no memory) and records every request it saw.
public final class TestHTTPServer: Sendable {
    /// A scripted misbehaviour, used once by the next request to the route.
    public enum Fault: Sendable {
        /// Answer this status with these headers and a short body.
        case status(Int, headers: [(String, String)] = [])
        /// Send the headers and this many body bytes, then close the connection.
        case cutAfter(Int)
        /// Send the headers, then nothing, until the client goes away.
        case stall
        /// Send the headers and this many body bytes, then nothing, until the client goes away.
        case stallAfter(Int)
        /// While receiving a request body, close the connection after this many bytes.
        case cutUploadAfter(Int)
        /// Send the body `bytes` at a time, one piece every `interval`: a slow-drip server that
        /// never goes quiet long enough for an idle timeout.
        case drip(bytes: Int, every: TimeAmount)
        /// Send the body chunked (no `Content-Length`) and end it properly after this many bytes:
        /// a short body that no framing error gives away.
        case endChunkedAfter(Int)
        /// Send a chunked body that goes on until the client leaves (or 1 GiB, to stay bounded):
        /// an answer whose end never comes.
        case endlessBody
    }

    public struct Route: Sendable {
        public var body: [UInt8]
        public var etag: String?
        public var lastModified: String?
        public var faults: [Fault]
        /// Status for a request with a body (push, upload) once the body is received.
        public var uploadStatus: Int
        /// Answer every `Range` with `206`, whatever `If-Range` says: a server (or cache) that
        /// would splice two versions of the resource if the client let it.
        public var ignoresIfRange: Bool
        /// A `206` names no total length (`Content-Range: bytes 400-999/*`).
        public var hidesTotalLength: Bool

        public init(
            body: [UInt8] = [],
            etag: String? = nil,
            lastModified: String? = nil,
            faults: [Fault] = [],
            uploadStatus: Int = 201,
            ignoresIfRange: Bool = false,
            hidesTotalLength: Bool = false
        ) {
            self.body = body
            self.etag = etag
            self.lastModified = lastModified
            self.faults = faults
            self.uploadStatus = uploadStatus
            self.ignoresIfRange = ignoresIfRange
            self.hidesTotalLength = hidesTotalLength
        }
    }

    public struct Recorded: Sendable {
        public var method: String
        public var uri: String
        public var headers: [(String, String)]
        /// The first 64 KiB of the request body.
        public var body: [UInt8]
        public var bodyBytes: Int
        public var bodySHA256: String
        public var time: Date

        public func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    private let channel: any Channel
    private let state: NIOLockedValueBox<State>
    public let port: Int

    struct State {
        var routes: [String: Route] = [:]
        var recorded: [Recorded] = []
        var bytesSent: [String: Int] = [:]
        var closed: [String: [Date]] = [:]
    }

    public static func start(files: [String: [UInt8]] = [:]) async throws -> TestHTTPServer {
        let state = initialState(files)
        return TestHTTPServer(channel: try await bootstrap(state).bind(host: "127.0.0.1", port: 0).get(), state: state)
    }

    /// For callers outside async code (lull-bench): blocks until the server listens.
    public static func startBlocking(files: [String: [UInt8]] = [:]) throws -> TestHTTPServer {
        let state = initialState(files)
        return TestHTTPServer(channel: try bootstrap(state).bind(host: "127.0.0.1", port: 0).wait(), state: state)
    }

    private static func initialState(_ files: [String: [UInt8]]) -> NIOLockedValueBox<State> {
        var initial = State()
        for (path, bytes) in files { initial.routes[path] = Route(body: bytes) }
        return NIOLockedValueBox(initial)
    }

    private static func bootstrap(_ state: NIOLockedValueBox<State>) -> ServerBootstrap {
        ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Handler(state: state))
                }
            }
    }

    private init(channel: any Channel, state: NIOLockedValueBox<State>) {
        self.channel = channel
        self.state = state
        port = channel.localAddress?.port ?? 0
    }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    public func serve(_ path: String, _ bytes: [UInt8]) {
        state.withLockedValue { $0.routes[path] = Route(body: bytes) }
    }

    public func route(_ path: String, _ route: Route) {
        state.withLockedValue { $0.routes[path] = route }
    }

    public var requests: [Recorded] { state.withLockedValue { $0.recorded } }

    /// Response body bytes sent for `path`, over all requests.
    public func bytesSent(_ path: String) -> Int { state.withLockedValue { $0.bytesSent[path] ?? 0 } }

    /// When connections that last asked for `path` closed, in order.
    public func connectionsClosed(_ path: String) -> [Date] { state.withLockedValue { $0.closed[path] ?? [] } }

    public func stop() async {
        try? await channel.close()
    }

    public func stopBlocking() {
        try? channel.close().wait()
    }

    /// Deterministic pseudo-random content, so tests can make large files without storing them.
    public static func bytes(count: Int, seed: UInt64 = 1) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var result = [UInt8](repeating: 0, count: count)
        result.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt64.self)
            for index in words.indices {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                words[index] = state
            }
        }
        return result
    }

    public static func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    private final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let state: NIOLockedValueBox<State>
        var head: HTTPRequestHead?
        var path = ""
        var fault: Fault?
        var body: [UInt8] = []
        var bodyBytes = 0
        var hasher = SHA256()

        init(state: NIOLockedValueBox<State>) { self.state = state }

        func channelInactive(context: ChannelHandlerContext) {
            if !path.isEmpty {
                let now = Date()
                state.withLockedValue { $0.closed[path, default: []].append(now) }
            }
            context.fireChannelInactive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                path = String(head.uri.split(separator: "?", maxSplits: 1).first ?? "")
                body = []
                bodyBytes = 0
                hasher = SHA256()
                fault = state.withLockedValue { state in
                    guard var route = state.routes[path], !route.faults.isEmpty else { return nil }
                    let next = route.faults.removeFirst()
                    state.routes[path] = route
                    return next
                }
            case .body(let buffer):
                buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                if body.count < 65_536 { body += buffer.readableBytesView.prefix(65_536 - body.count) }
                bodyBytes += buffer.readableBytes
                if case .cutUploadAfter(let limit) = fault, bodyBytes >= limit {
                    record()
                    context.close(promise: nil)
                }
            case .end:
                guard let head else { return }
                record()
                respond(context: context, head: head)
            }
        }

        private func record() {
            guard let head else { return }
            let digest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
            let entry = Recorded(
                method: head.method.rawValue,
                uri: head.uri,
                headers: head.headers.map { ($0.name, $0.value) },
                body: body,
                bodyBytes: bodyBytes,
                bodySHA256: digest,
                time: Date()
            )
            state.withLockedValue { $0.recorded.append(entry) }
        }

        private func respond(context: ChannelHandlerContext, head: HTTPRequestHead) {
            let route = state.withLockedValue { $0.routes[path] }
            switch fault {
            case .status(let code, let extra):
                var headers = HTTPHeaders(extra)
                // The answer to a HEAD has no body: bytes after it would be read as the next answer.
                let payload = ByteBuffer(string: head.method == .HEAD ? "" : "scripted \(code)\n")
                headers.add(name: "content-length", value: String(payload.readableBytes))
                context.write(
                    wrapOutboundOut(
                        .head(
                            HTTPResponseHead(version: head.version, status: .init(statusCode: code), headers: headers)
                        )
                    ),
                    promise: nil
                )
                context.write(wrapOutboundOut(.body(.byteBuffer(payload))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                return
            case .cutUploadAfter:
                return
            default:
                break
            }
            guard let route else {
                send(
                    context: context,
                    head: head,
                    status: .notFound,
                    headers: [:],
                    body: Array("not found\n".utf8),
                    from: 0
                )
                return
            }
            if head.method != .GET && head.method != .HEAD {
                send(
                    context: context,
                    head: head,
                    status: .init(statusCode: route.uploadStatus),
                    headers: ["content-type": "text/plain"],
                    body: Array("stored \(bodyBytes) bytes\n".utf8),
                    from: 0
                )
                return
            }
            var headers: [String: String] = ["accept-ranges": "bytes"]
            if let etag = route.etag { headers["etag"] = etag }
            if let lastModified = route.lastModified { headers["last-modified"] = lastModified }
            if let condition = head.headers.first(name: "if-none-match"), condition == route.etag {
                send(context: context, head: head, status: .notModified, headers: headers, body: [], from: 0)
                return
            }
            var start = 0
            if let range = head.headers.first(name: "range"), range.hasPrefix("bytes="),
                let first = Int(range.dropFirst(6).split(separator: "-").first ?? "")
            {
                let validator = head.headers.first(name: "if-range")
                if validator == nil || validator == route.etag || validator == route.lastModified
                    || route.ignoresIfRange
                {
                    guard first < route.body.count else {
                        // As nginx does: a range starting at or past the end is unsatisfiable.
                        headers["content-range"] = "bytes */\(route.body.count)"
                        send(
                            context: context,
                            head: head,
                            status: .rangeNotSatisfiable,
                            headers: headers,
                            body: [],
                            from: 0
                        )
                        return
                    }
                    start = first
                    headers["content-range"] =
                        "bytes \(first)-\(route.body.count - 1)/\(route.hidesTotalLength ? "*" : String(route.body.count))"
                }
            }
            send(
                context: context,
                head: head,
                status: start > 0 ? .partialContent : .ok,
                headers: headers,
                body: route.body,
                from: start
            )
        }

        private func send(
            context: ChannelHandlerContext,
            head: HTTPRequestHead,
            status: HTTPResponseStatus,
            headers: [String: String],
            body: [UInt8],
            from start: Int
        ) {
            var responseHeaders = HTTPHeaders(headers.map { ($0.key, $0.value) })
            let length = status == .notModified ? 0 : body.count - start
            if case .endChunkedAfter(let count) = fault {
                context.write(
                    wrapOutboundOut(
                        .head(HTTPResponseHead(version: head.version, status: status, headers: responseHeaders))
                    ),
                    promise: nil
                )
                writeChunks(
                    context: context,
                    body: body,
                    from: start,
                    to: min(body.count, start + count),
                    complete: true
                )
                return
            }
            if case .endlessBody = fault {
                context.write(
                    wrapOutboundOut(
                        .head(HTTPResponseHead(version: head.version, status: status, headers: responseHeaders))
                    ),
                    promise: nil
                )
                writeEndlessly(context: context, left: 1 << 30)
                return
            }
            responseHeaders.add(name: "content-length", value: String(length))
            context.writeAndFlush(
                wrapOutboundOut(
                    .head(HTTPResponseHead(version: head.version, status: status, headers: responseHeaders))
                ),
                promise: nil
            )
            if head.method == .HEAD || length == 0 {
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                return
            }
            var limit = body.count
            switch fault {
            case .cutAfter(let count): limit = min(body.count, start + count)
            case .stallAfter(let count):
                writeChunks(
                    context: context,
                    body: body,
                    from: start,
                    to: min(body.count, start + count),
                    complete: false,
                    closeAtEnd: false
                )
                return
            case .stall: return
            case .drip(let bytes, let interval):
                drip(context: context, body: body, from: start, piece: max(1, bytes), every: interval)
                return
            default: break
            }
            writeChunks(context: context, body: body, from: start, to: limit, complete: limit == body.count)
        }

        private func writeEndlessly(context: ChannelHandlerContext, left: Int) {
            guard left > 0, context.channel.isActive else { return }
            let piece = min(left, 64 << 10)
            let path = self.path
            state.withLockedValue { $0.bytesSent[path, default: 0] += piece }
            let boxed = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(repeating: 0x2E, count: piece)))))
                .whenSuccess {
                    let (handler, context) = boxed.value
                    handler.writeEndlessly(context: context, left: left - piece)
                }
        }

        private func drip(
            context: ChannelHandlerContext,
            body: [UInt8],
            from start: Int,
            piece: Int,
            every interval: TimeAmount
        ) {
            guard start < body.count else {
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                return
            }
            let stop = min(body.count, start + piece)
            let path = self.path
            state.withLockedValue { $0.bytesSent[path, default: 0] += stop - start }
            let boxed = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body[start..<stop])))))
                .whenSuccess {
                    boxed.value.1.eventLoop.scheduleTask(in: interval) {
                        let (handler, context) = boxed.value
                        guard context.channel.isActive else { return }
                        handler.drip(context: context, body: body, from: stop, piece: piece, every: interval)
                    }
                }
        }

        /// Writes in 1 MiB chunks, each after the previous one is flushed, so a large body does not
        /// sit in memory twice and a closed connection stops the writing.
        private func writeChunks(
            context: ChannelHandlerContext,
            body: [UInt8],
            from start: Int,
            to end: Int,
            complete: Bool,
            closeAtEnd: Bool = true
        ) {
            guard start < end else {
                if complete {
                    context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                } else if closeAtEnd {
                    context.close(promise: nil)
                }
                return
            }
            let stop = min(end, start + (1 << 20))
            let chunk = ByteBuffer(bytes: body[start..<stop])
            let path = self.path
            state.withLockedValue { $0.bytesSent[path, default: 0] += stop - start }
            let loop = context.eventLoop
            let boxed = NIOLoopBound((self, context), eventLoop: loop)
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(chunk)))).whenComplete { result in
                guard case .success = result else { return }
                let (handler, context) = boxed.value
                handler.writeChunks(
                    context: context,
                    body: body,
                    from: stop,
                    to: end,
                    complete: complete,
                    closeAtEnd: closeAtEnd
                )
            }
        }
    }
}
