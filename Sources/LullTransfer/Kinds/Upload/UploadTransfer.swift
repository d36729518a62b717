import AsyncHTTPClient
import Foundation
import LullCore
import NIOCore
import NIOHTTP1

/// Sends a file: as the raw body of a PUT or POST, as one part of a `multipart/form-data` POST,
/// or resumably with tus 1.0 (creation + core), whose upload URL and offset survive restarts.
public struct UploadTransfer: TransferEngine {
    private let clients: HTTPClients
    private let files: FileAccess
    private let settings: TransferSettings

    public init(clients: HTTPClients, files: FileAccess, settings: TransferSettings = TransferSettings()) {
        self.clients = clients
        self.files = files
        self.settings = settings
    }

    public func run(_ job: Job, context: TransferContext) async throws -> JobResult {
        guard let path = job.spec.payload.upload?.source else {
            throw JobFailure(code: "invalid_job", message: "upload job has no source", retryable: false)
        }
        do {
            let source = try await SourceFile.open(path, owner: job.owner, files: files)
            defer { Task { await source.close() } }
            if let resume = job.resume, resume.sourceSize != nil {
                try await source.checkUnchanged(against: resume)
            } else if job.spec.payload.upload?.uploadProtocol != .tus {
                // Remember what the file was, so a retry after a change fails instead of sending a mix.
                await context.checkpoint(ResumeState(sourceSize: source.size, sourceModified: source.modified))
            }
            let client = try await clients.client(for: job, settings: settings, files: files)
            let watchdog = TransferWatchdog(for: job, settings: settings, sleeper: clients.sleeper)
            return try await watchdog.guarding {
                switch job.spec.payload.upload?.uploadProtocol ?? .raw {
                case .raw:
                    try await sendWhole(
                        job,
                        source,
                        client: client,
                        multipart: false,
                        context: context,
                        watchdog: watchdog
                    )
                case .multipart:
                    try await sendWhole(
                        job,
                        source,
                        client: client,
                        multipart: true,
                        context: context,
                        watchdog: watchdog
                    )
                case .tus:
                    try await TusUpload(
                        job: job,
                        source: source,
                        client: client,
                        settings: settings,
                        context: context,
                        watchdog: watchdog
                    ).run()
                }
            }
        } catch let failure as FileFailure {
            throw failure.jobFailure
        } catch let failure as JobFailure {
            throw failure
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw TransferFailures.classify(error)
        }
    }

    private func sendWhole(
        _ job: Job,
        _ source: SourceFile,
        client: JobClient,
        multipart: Bool,
        context: TransferContext,
        watchdog: TransferWatchdog
    ) async throws -> JobResult {
        var request = HTTPClientRequest(
            of: job,
            method: HTTPMethod(rawValue: job.spec.payload.upload?.method ?? (multipart ? "POST" : "PUT"))
        )
        let total = source.size
        let chunks = source.chunks(from: 0) { sent in
            watchdog.touch()
            context.progress(TransferProgress(bytesDone: sent, bytesTotal: total))
        }
        if multipart {
            let boundary = "lull-" + UUID().uuidString
            let field = job.spec.payload.upload?.formField ?? "file"
            let filename = URL(fileURLWithPath: source.path).lastPathComponent.replacingOccurrences(of: "\"", with: "_")
            let type = job.spec.payload.upload?.contentType ?? "application/octet-stream"
            let head = ByteBuffer(
                string:
                    "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(field)\"; filename=\"\(filename)\"\r\nContent-Type: \(type)\r\n\r\n"
            )
            let tail = ByteBuffer(string: "\r\n--\(boundary)--\r\n")
            request.headers.replaceOrAdd(name: "content-type", value: "multipart/form-data; boundary=\(boundary)")
            let parts = MultipartBody(head: head, file: chunks, tail: tail)
            request.body = .stream(
                parts,
                length: .known(Int64(head.readableBytes + tail.readableBytes) + total),
                throttle: context.throttle,
                watchdog: watchdog
            )
        } else {
            if let type = job.spec.payload.upload?.contentType {
                request.headers.replaceOrAdd(name: "content-type", value: type)
            }
            request.body = .stream(chunks, length: .known(total), throttle: context.throttle, watchdog: watchdog)
        }
        let response = try await client.execute(request, timeout: settings.total(for: job))
        watchdog.touch()
        try await source.checkUnchanged()
        try await ResponseCapture.requireSuccess(response, watchdog: watchdog)
        return try await ResponseCapture.result(
            response,
            maxBody: settings.maxResponseBodyBytes,
            bytes: total,
            watchdog: watchdog
        )
    }
}

/// A multipart body: a header part, the file's chunks, and the closing boundary.
struct MultipartBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let head: ByteBuffer
    let file: FileChunks
    let tail: ByteBuffer

    struct AsyncIterator: AsyncIteratorProtocol {
        var stage = 0
        let body: MultipartBody
        var fileIterator: FileChunks.AsyncIterator

        mutating func next() async throws -> ByteBuffer? {
            switch stage {
            case 0:
                stage = 1
                return body.head
            case 1:
                if let chunk = try await fileIterator.next() { return chunk }
                stage = 2
                return body.tail
            default:
                return nil
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(body: self, fileIterator: file.makeAsyncIterator())
    }
}
