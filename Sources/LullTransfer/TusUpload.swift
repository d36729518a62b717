import AsyncHTTPClient
import Foundation
import LullCore
import NIOCore
import NIOHTTP1

/// One attempt of a tus 1.0 upload (creation + core extensions): create the upload once
/// (`POST` with `Upload-Length` → `Location`), record its URL durably, then ask the server where
/// it stands (`HEAD` → `Upload-Offset`) and send the rest (`PATCH`,
/// `application/offset+octet-stream`). An interrupted attempt loses at most what the server had
/// not yet stored.
struct TusUpload {
    static let version = "1.0.0"

    let job: Job
    let source: SourceFile
    let client: HTTPClient
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
            resume.uploadURL = try await create()
            offset = 0
        }
        resume.offset = offset
        await context.checkpoint(resume)
        guard let uploadURL = resume.uploadURL else { throw JobFailure(code: "tus_error", message: "no upload URL", retryable: true) }

        if offset < source.size {
            var request = HTTPClientRequest(url: uploadURL)
            request.method = .PATCH
            request.headers.add(name: "tus-resumable", value: Self.version)
            request.headers.add(name: "upload-offset", value: String(offset))
            request.headers.add(name: "content-type", value: "application/offset+octet-stream")
            for (name, value) in job.spec.headers ?? [:] { request.headers.add(name: name, value: value) }
            let total = source.size
            let context = self.context
            let watchdog = self.watchdog
            request.body = .stream(source.chunks(from: offset) { sent in
                watchdog.touch()
                context.progress(TransferProgress(bytesDone: sent, bytesTotal: total))
            }, length: .known(total - offset))
            let response = try await client.execute(request, timeout: settings.total(for: job))
            watchdog.touch()
            try await source.checkUnchanged(against: resume)
            if response.status == .notFound || response.status == .gone {
                // The server forgot the upload: start a new one next attempt.
                resume.uploadURL = nil
                resume.offset = 0
                await context.checkpoint(resume)
                throw JobFailure(code: "tus_upload_gone", message: "the server no longer has the upload; starting over", retryable: true)
            }
            if response.status == .conflict {
                // Upload-Offset no longer matches the server's: it was still storing the body of
                // an interrupted PATCH when we asked. The next attempt asks again (HEAD).
                throw JobFailure(
                    code: "tus_offset_conflict", message: "the server's offset moved past \(offset); asking it again", retryable: true)
            }
            try await ResponseCapture.requireSuccess(response, watchdog: watchdog)
            try? await ResponseCapture.drain(response, upTo: 64 << 10, watchdog: watchdog)
            offset = response.headers.first(name: "upload-offset").flatMap(Int64.init) ?? offset
            resume.offset = offset
            await context.checkpoint(resume)
        }
        guard offset == source.size else {
            throw JobFailure(
                code: "tus_incomplete", message: "the server holds \(offset) of \(source.size) bytes; resuming", retryable: true)
        }
        return JobResult(httpStatus: 204, bytes: source.size, uploadURL: uploadURL)
    }

    /// The server's offset for an existing upload, or nil when it no longer knows it.
    private func currentOffset(_ url: String) async throws -> Int64? {
        var request = HTTPClientRequest(url: url)
        request.method = .HEAD
        request.headers.add(name: "tus-resumable", value: Self.version)
        for (name, value) in job.spec.headers ?? [:] { request.headers.add(name: name, value: value) }
        let response = try await client.execute(request, timeout: .seconds(Int64(settings.connectTimeout + settings.idleTimeout)))
        watchdog.touch()
        if response.status == .notFound || response.status == .gone || response.status == .forbidden { return nil }
        try await ResponseCapture.requireSuccess(response, watchdog: watchdog)
        guard let offset = response.headers.first(name: "upload-offset").flatMap(Int64.init) else {
            throw JobFailure(code: "tus_protocol", message: "HEAD \(url) answered without Upload-Offset", retryable: false)
        }
        return offset
    }

    /// Creates the upload and returns its absolute URL.
    private func create() async throws -> String {
        var request = HTTPClientRequest(url: job.spec.url)
        request.method = .POST
        request.headers.add(name: "tus-resumable", value: Self.version)
        request.headers.add(name: "upload-length", value: String(source.size))
        let name = Data(URL(fileURLWithPath: source.path).lastPathComponent.utf8).base64EncodedString()
        let type = Data((job.spec.contentType ?? "application/octet-stream").utf8).base64EncodedString()
        request.headers.add(name: "upload-metadata", value: "filename \(name),filetype \(type)")
        for (header, value) in job.spec.headers ?? [:] { request.headers.add(name: header, value: value) }
        let response = try await client.execute(request, timeout: .seconds(Int64(settings.connectTimeout + settings.idleTimeout)))
        watchdog.touch()
        try await ResponseCapture.requireSuccess(response, watchdog: watchdog)
        guard let location = response.headers.first(name: "location"),
              let absolute = URL(string: location, relativeTo: URL(string: job.spec.url))?.absoluteString
        else {
            throw JobFailure(code: "tus_protocol", message: "the server created the upload without a Location", retryable: false)
        }
        return absolute
    }
}
