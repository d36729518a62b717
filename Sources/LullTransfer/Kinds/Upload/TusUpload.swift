import AsyncHTTPClient
import Foundation
import LullCore
import NIOCore
import NIOHTTP1

/// One attempt of a tus 1.0 upload (creation + core extensions): ask the server what it takes
/// (`OPTIONS` → `Tus-Max-Size`), create the upload once (`POST` with `Upload-Length` →
/// `Location`), record its URL durably, then ask the server where it stands (`HEAD` →
/// `Upload-Offset`) and send the rest in `PATCH`es of at most the chunk size
/// (`application/offset+octet-stream`). A server or proxy that limits a request's size answers
/// `413`: the chunk is halved, down to `smallestChunk`, for the rest of the attempt, and sending
/// goes on from the server's offset. An interrupted attempt loses at most what the server had
/// not yet stored.
struct TusUpload {
    static let version = "1.0.0"
    /// The least a `PATCH` shrinks to after a `413`.
    static let smallestChunk = UploadJob.chunkBytesRange.lowerBound

    let job: Job
    let source: SourceFile
    let client: JobClient
    let settings: TransferSettings
    let context: TransferContext
    let watchdog: TransferWatchdog

    func run() async throws -> JobResult {
        var resume = job.resume ?? ResumeState()
        resume.sourceSize = resume.sourceSize ?? source.size
        resume.sourceModified = resume.sourceModified ?? source.modified
        var offset: Int64
        if let existing = resume.uploadURL, let serverOffset = try await currentOffset(existing) {
            offset = serverOffset
        } else {
            try await checkMaxSize()
            resume.uploadURL = try await create()
            offset = 0
        }
        resume.offset = offset
        await context.checkpoint(resume)
        guard let uploadURL = resume.uploadURL else {
            throw JobFailure(code: "tus_error", message: "no upload URL", retryable: true)
        }

        var chunk = settings.tusChunk(for: job)
        var checkpointed = ContinuousClock.now
        while offset < source.size {
            let length = min(chunk, source.size - offset)
            let response = try await patch(uploadURL, from: offset, length: length)
            try await source.checkUnchanged(against: resume)
            switch response.status {
            case .notFound, .gone:
                // The server forgot the upload: start a new one next attempt.
                resume.uploadURL = nil
                resume.offset = 0
                await context.checkpoint(resume)
                throw JobFailure(
                    code: "tus_upload_gone",
                    message: "the server no longer has the upload; starting over",
                    retryable: true
                )
            case .conflict:
                // Upload-Offset no longer matches the server's: it was still storing the body of
                // an interrupted PATCH when we asked. The next attempt asks again (HEAD).
                throw JobFailure(
                    code: "tus_offset_conflict",
                    message: "the server's offset moved past \(offset); asking it again",
                    retryable: true
                )
            case .payloadTooLarge:
                try? await ResponseCapture.drain(response, upTo: 64 << 10, watchdog: watchdog)
                guard length > Self.smallestChunk else {
                    var failure = TransferFailures.httpStatus(response.status, headers: response.headers)
                    failure.message =
                        "the server (or a proxy before it) refuses a PATCH of \(length) bytes with 413 Payload Too Large, even at the smallest chunk size of \(Self.smallestChunk) bytes"
                    throw failure
                }
                chunk = max(Self.smallestChunk, length / 2)
                // The server may have kept part of the refused body: go on from what it holds.
                guard let known = try await currentOffset(uploadURL) else {
                    throw JobFailure(
                        code: "tus_upload_gone",
                        message: "the server no longer has the upload; starting over",
                        retryable: true
                    )
                }
                offset = known
                continue
            default:
                break
            }
            try await ResponseCapture.requireSuccess(response, watchdog: watchdog)
            try? await ResponseCapture.drain(response, upTo: 64 << 10, watchdog: watchdog)
            // An answer without Upload-Offset (a proxy that passes on only the headers it
            // knows) does not say how much was stored: the server is asked.
            var confirmed = response.headers.first(name: "upload-offset").flatMap(Int64.init)
            if confirmed == nil { confirmed = try await currentOffset(uploadURL) }
            guard let confirmed else {
                throw JobFailure(
                    code: "tus_upload_gone",
                    message: "the server no longer has the upload; starting over",
                    retryable: true
                )
            }
            guard confirmed > offset else {
                throw JobFailure(
                    code: "tus_incomplete",
                    message: "the server took none of the \(length) bytes sent from \(offset); resuming",
                    retryable: true
                )
            }
            offset = confirmed
            resume.offset = offset
            // The server's offset is the resume point; storing it is not needed for resuming
            // (HEAD asks), so it is stored at the checkpoint interval, for progress and accounting.
            if offset >= source.size
                || ContinuousClock.now - checkpointed >= .milliseconds(Int64(settings.checkpointInterval * 1000))
            {
                await context.checkpoint(resume)
                checkpointed = .now
            }
        }
        guard offset == source.size else {
            throw JobFailure(
                code: "tus_incomplete",
                message: "the server holds \(offset) of \(source.size) bytes; resuming",
                retryable: true
            )
        }
        return JobResult(httpStatus: 204, bytes: source.size, uploadURL: uploadURL)
    }

    /// Sends the bytes from `offset` to `offset + length` in one `PATCH`.
    private func patch(_ uploadURL: String, from offset: Int64, length: Int64) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(of: job, url: uploadURL, method: .PATCH)
        request.headers.add(name: "tus-resumable", value: Self.version)
        request.headers.add(name: "upload-offset", value: String(offset))
        request.headers.add(name: "content-type", value: "application/offset+octet-stream")
        let total = source.size
        let context = self.context
        let watchdog = self.watchdog
        request.body = .stream(
            source.chunks(from: offset, to: offset + length) { sent in
                watchdog.touch()
                context.progress(TransferProgress(bytesDone: sent, bytesTotal: total))
            },
            length: .known(length),
            throttle: context.throttle,
            watchdog: watchdog
        )
        let response = try await client.execute(request, timeout: settings.total(for: job))
        watchdog.touch()
        return response
    }

    /// The server's offset for an existing upload, or nil when it no longer knows it.
    private func currentOffset(_ url: String) async throws -> Int64? {
        var request = HTTPClientRequest(of: job, url: url, method: .HEAD)
        request.headers.add(name: "tus-resumable", value: Self.version)
        let response = try await client.execute(request, timeout: settings.shortRequest)
        watchdog.touch()
        if response.status == .notFound || response.status == .gone || response.status == .forbidden { return nil }
        try await ResponseCapture.requireSuccess(response, watchdog: watchdog)
        guard let offset = response.headers.first(name: "upload-offset").flatMap(Int64.init) else {
            throw JobFailure(
                code: "tus_protocol",
                message: "HEAD \(url) answered without Upload-Offset",
                retryable: false
            )
        }
        return offset
    }

    /// Fails for good when the file is larger than the whole upload the server accepts
    /// (`Tus-Max-Size`). A server that does not answer `OPTIONS` says nothing about a limit.
    private func checkMaxSize() async throws {
        var request = HTTPClientRequest(of: job, method: .OPTIONS)
        request.headers.add(name: "tus-resumable", value: Self.version)
        let response = try await client.execute(request, timeout: settings.shortRequest)
        watchdog.touch()
        try? await ResponseCapture.drain(response, upTo: 64 << 10, watchdog: watchdog)
        guard (200..<300).contains(response.status.code),
            let limit = response.headers.first(name: "tus-max-size").flatMap(Int64.init), source.size > limit
        else { return }
        throw Self.tooLarge(source, limit: "its Tus-Max-Size is \(limit) bytes")
    }

    private static func tooLarge(_ source: SourceFile, limit: String) -> JobFailure {
        JobFailure(
            code: "tus_too_large",
            message:
                "\(source.path) is \(source.size) bytes, more than the server accepts for one upload (\(limit)); send a smaller file or ask the server's administrator to raise the limit",
            retryable: false
        )
    }

    /// Creates the upload and returns its absolute URL.
    private func create() async throws -> String {
        var request = HTTPClientRequest(of: job, method: .POST)
        request.headers.add(name: "tus-resumable", value: Self.version)
        request.headers.add(name: "upload-length", value: String(source.size))
        let name = Data(URL(fileURLWithPath: source.path).lastPathComponent.utf8).base64EncodedString()
        let type = Data((job.spec.payload.upload?.contentType ?? "application/octet-stream").utf8).base64EncodedString()
        request.headers.add(name: "upload-metadata", value: "filename \(name),filetype \(type)")
        let response = try await client.execute(request, timeout: settings.shortRequest)
        watchdog.touch()
        if response.status == .payloadTooLarge {
            // tus: the answer to an Upload-Length past the server's Tus-Max-Size.
            try? await ResponseCapture.drain(response, upTo: 64 << 10, watchdog: watchdog)
            throw Self.tooLarge(source, limit: "it refused to create the upload with 413")
        }
        try await ResponseCapture.requireSuccess(response, watchdog: watchdog)
        guard let location = response.headers.first(name: "location"),
            let absolute = URL(string: location, relativeTo: URL(string: job.transfer?.url ?? ""))?.absoluteString
        else {
            throw JobFailure(
                code: "tus_protocol",
                message: "the server created the upload without a Location",
                retryable: false
            )
        }
        return absolute
    }
}

extension TransferSettings {
    /// The most bytes one tus `PATCH` of `job` carries.
    func tusChunk(for job: Job) -> Int64 { job.spec.payload.upload?.chunkBytes ?? tusChunkBytes }
}
