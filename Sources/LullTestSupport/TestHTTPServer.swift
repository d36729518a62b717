import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP/1.1 server on 127.0.0.1 for tests. It serves registered files, and records every
/// request it saw so tests can assert on what the daemon sent.
public final class TestHTTPServer: Sendable {
    public struct Recorded: Sendable {
        public var method: String
        public var uri: String
        public var headers: [(String, String)]
        public var body: [UInt8]
    }

    private let channel: any Channel
    private let files: NIOLockedValueBox<[String: [UInt8]]>
    private let recorded: NIOLockedValueBox<[Recorded]>
    public let port: Int

    public static func start(files: [String: [UInt8]] = [:]) async throws -> TestHTTPServer {
        let fileBox = NIOLockedValueBox(files)
        let recordBox = NIOLockedValueBox<[Recorded]>([])
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Handler(files: fileBox, recorded: recordBox))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return TestHTTPServer(channel: channel, files: fileBox, recorded: recordBox)
    }

    private init(channel: any Channel, files: NIOLockedValueBox<[String: [UInt8]]>, recorded: NIOLockedValueBox<[Recorded]>) {
        self.channel = channel
        self.files = files
        self.recorded = recorded
        port = channel.localAddress?.port ?? 0
    }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    public func serve(_ path: String, _ bytes: [UInt8]) {
        files.withLockedValue { $0[path] = bytes }
    }

    public var requests: [Recorded] { recorded.withLockedValue { $0 } }

    public func stop() async {
        try? await channel.close()
    }

    /// Deterministic pseudo-random content, so tests can make large files without storing them.
    public static func bytes(count: Int, seed: UInt64 = 1) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var result = [UInt8](repeating: 0, count: count)
        for index in 0..<count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            result[index] = UInt8(truncatingIfNeeded: state)
        }
        return result
    }

    public static func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    private final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let files: NIOLockedValueBox<[String: [UInt8]]>
        let recorded: NIOLockedValueBox<[Recorded]>
        var head: HTTPRequestHead?
        var body: [UInt8] = []

        init(files: NIOLockedValueBox<[String: [UInt8]]>, recorded: NIOLockedValueBox<[Recorded]>) {
            self.files = files
            self.recorded = recorded
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body = []
            case .body(let buffer):
                body += buffer.readableBytesView
            case .end:
                guard let head else { return }
                recorded.withLockedValue {
                    $0.append(Recorded(
                        method: head.method.rawValue, uri: head.uri, headers: head.headers.map { ($0.name, $0.value) },
                        body: body))
                }
                let path = String(head.uri.split(separator: "?", maxSplits: 1).first ?? "")
                let content = files.withLockedValue { $0[path] }
                var headers = HTTPHeaders()
                let status: HTTPResponseStatus = content == nil ? .notFound : .ok
                let payload = content ?? Array("not found\n".utf8)
                headers.add(name: "content-length", value: String(payload.count))
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: payload)))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
