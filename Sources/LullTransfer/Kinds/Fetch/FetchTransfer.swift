import AsyncHTTPClient
import Crypto
import Foundation
import LullCore
import NIOCore
import NIOHTTP1

/// Downloads a URL into a staging file beside the destination and renames it into place only
/// once complete, verified and flushed: the destination never holds a partial file.
/// An interrupted download resumes with `Range` + `If-Range` from the last durable offset and
/// starts over only when the server cannot resume or the resource changed. A repeated fetch of
/// the same URL into the same file asks `If-None-Match`/`If-Modified-Since`; 304 is "no new data".
public struct FetchTransfer: TransferEngine {
    private let clients: HTTPClients
    private let files: FileAccess
    private let settings: TransferSettings

    public init(clients: HTTPClients, files: FileAccess, settings: TransferSettings = TransferSettings()) {
        self.clients = clients
        self.files = files
        self.settings = settings
    }

    public func run(_ job: Job, context: TransferContext) async throws -> JobResult {
        guard let destination = job.spec.payload.fetch?.destination else {
            throw JobFailure(code: "invalid_job", message: "fetch job has no destination", retryable: false)
        }
        do {
            try await files.checkAllowed(destination, owner: job.owner)
            let client = try await clients.client(for: job, settings: settings, files: files)
            let watchdog = TransferWatchdog(for: job, settings: settings, sleeper: clients.sleeper)
            return try await watchdog.guarding {
                try await download(job, to: destination, client: client, context: context, watchdog: watchdog)
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

    /// The partial download is of no use once the job is over.
    public func discardResumeData(of job: Job) async {
        guard let destination = job.spec.payload.fetch?.destination else { return }
        let path = StagingFile.path(for: destination, jobID: job.id.rawValue)
        _ = try? await files.run(as: job.owner) { unlink(path) }
    }

    private func download(
        _ job: Job,
        to destination: String,
        client: JobClient,
        context: TransferContext,
        watchdog: TransferWatchdog
    ) async throws -> JobResult {
        let previous = job.resume ?? ResumeState()
        let resumable = previous.validator != nil && previous.offset > 0
        let (staging, kept, existing, freeBytes) = try await StagingFile.open(
            for: destination,
            jobID: job.id.rawValue,
            owner: job.owner,
            keep: resumable ? previous.offset : 0,
            mode: job.spec.payload.fetch?.fileMode,
            files: files
        )
        var keepStaging = true
        defer { if keepStaging { Task { await staging.close() } } }

        var offset = kept
        var transferred = previous.transferredBytes
        // Only a file already in place can be kept by a 304: no store read for a first fetch.
        let expected = job.spec.payload.fetch?.sha256
        let conditional =
            offset == 0 && existing != nil
            ? await context.validators().flatMap { $0.mayKeep(file: existing, expecting: expected) ? $0 : nil } : nil
        var response = try await send(
            job,
            client,
            from: offset,
            validator: previous.validator,
            conditional: conditional
        )
        watchdog.touch()

        if offset > 0 && response.status == .ok {
            // The server ignored the range or the resource changed under If-Range: start over.
            offset = 0
            try await staging.restart()
        }
        if offset > 0 && Self.cannotContinue(response, from: offset, validator: previous.validator) {
            offset = 0
            try await staging.restart()
            response = try await send(job, client, from: 0, validator: nil, conditional: nil)
            watchdog.touch()
        }
        if response.status == .notModified, conditional != nil {
            keepStaging = false
            await staging.discard()
            let size = try await files.fileSize(destination, owner: job.owner)
            return JobResult(
                httpStatus: 304,
                bytes: size,
                // The file is the one the earlier fetch hashed (`mayKeep` checked it is unchanged).
                sha256: conditional?.sha256,
                path: destination,
                notModified: true,
                etag: response.headers.first(name: "etag") ?? conditional?.etag,
                lastModified: response.headers.first(name: "last-modified") ?? conditional?.lastModified,
                bytesTransferred: transferred,
                file: existing
            )
        }
        guard response.status == .ok || response.status == .partialContent else {
            throw TransferFailures.httpStatus(response.status, headers: response.headers)
        }

        let total = Self.totalLength(response.headers, offset: offset)
        try await checkLimits(job, total: total, offset: offset, destination: destination, free: freeBytes)
        let etag = response.headers.first(name: "etag")
        let lastModified = response.headers.first(name: "last-modified")
        let validator = Self.resumeValidator(response.headers)
        var resume = ResumeState(validator: validator, offset: offset)
        resume.transferredBytes = transferred
        // A fresh start stores no checkpoint yet: what is stored already resumes nothing (a next
        // attempt starts over either way), so the first is stored after the first interval, or
        // when the attempt is cut short, and a file that arrives within it is written once, as
        // succeeded. An attempt that continues or starts over a stored resume point records where
        // it stands now, so a crash cannot resume onto bytes not yet made durable.
        if resumable { await context.checkpoint(resume) }

        let digest = RunningDigest(try await staging.hashPrefix(offset) { watchdog.touch() })
        var received = offset
        var writer = OverlappedWriter(staging: staging, digest: digest)
        let cap = job.spec.payload.fetch?.maxBytes ?? settings.maxFetchBytes
        var lastCheckpoint = ContinuousClock.now
        let interval = Duration.milliseconds(Int64(settings.checkpointInterval * 1000))
        var chunks = response.body.makeAsyncIterator()
        // The bytes of the last chunk, paid to the bandwidth limits before the next is read: while
        // the throttle holds the loop, the response stream stops reading the socket.
        var unpaid = 0
        do {
            while true {
                let next: ByteBuffer?
                do {
                    if unpaid > 0, let throttle = context.throttle {
                        try await throttle.admit(unpaid) { watchdog.touch() }
                    }
                    next = try await chunks.next()
                } catch {
                    // The connection broke, or the daemon is stopping or the machine going to
                    // sleep (cancellation): everything received so far goes to disk, is made
                    // durable and recorded, so the next attempt asks for exactly the rest. (After
                    // a cancel command the record is refused by the store and the staging file
                    // removed.) A cancelled task can no longer use the thread pool, so the tail
                    // is saved from a task of its own (it does not inherit the cancellation).
                    // Without a validator the next attempt starts over: nothing to save.
                    if validator != nil {
                        let saved = await Task { [writer, staging] () -> Bool in
                            var writer = writer
                            do {
                                try await writer.finish()
                                try await staging.flush()
                                return true
                            } catch {
                                return false
                            }
                        }.value
                        if saved {
                            resume.offset = received
                            resume.transferredBytes = transferred
                            await context.checkpoint(resume)
                        }
                    }
                    throw error
                }
                guard var chunk = next else { break }
                watchdog.touch()
                unpaid = chunk.readableBytes
                received += Int64(chunk.readableBytes)
                transferred += Int64(chunk.readableBytes)
                try await writer.add(&chunk)
                if received > cap {
                    keepStaging = false
                    try? await writer.settle()
                    await staging.discard()
                    throw JobFailure(code: "too_large", message: "download exceeds max_bytes \(cap)", retryable: false)
                }
                context.progress(TransferProgress(bytesDone: received, bytesTotal: total))
                if validator != nil, ContinuousClock.now - lastCheckpoint >= interval {
                    try await writer.finish()
                    try await staging.flush()
                    resume.offset = received
                    resume.transferredBytes = transferred
                    await context.checkpoint(resume)
                    lastCheckpoint = .now
                }
            }
        } catch {
            // Whatever ends the download, the write in flight finishes before the file is closed.
            try? await writer.settle()
            throw error
        }
        try await writer.finish()
        if let total, total != received {
            try await staging.flush()
            resume.offset = received
            resume.transferredBytes = transferred
            await context.checkpoint(resume)
            throw JobFailure(
                code: "truncated",
                message: "the server sent \(received) of \(total) bytes; the download resumes",
                retryable: true
            )
        }
        let sha256 = digest.hex()
        if let expected = job.spec.payload.fetch?.sha256, expected.lowercased() != sha256 {
            keepStaging = false
            await staging.discard()
            throw JobFailure(
                code: "checksum_mismatch",
                message: "SHA-256 is \(sha256), expected \(expected.lowercased())",
                retryable: false
            )
        }
        if let expected = job.spec.payload.fetch?.expectedBytes, expected != received {
            keepStaging = false
            await staging.discard()
            throw JobFailure(
                code: "size_mismatch",
                message: "received \(received) bytes, expected \(expected)",
                retryable: false
            )
        }
        keepStaging = false
        let file = await staging.identity()
        try await watchdog.withoutIdleLimit { try await staging.commit(mode: job.spec.payload.fetch?.fileMode) }
        return JobResult(
            httpStatus: Int(response.status.code),
            bytes: received,
            sha256: sha256,
            path: destination,
            etag: etag,
            lastModified: lastModified,
            bytesTransferred: transferred,
            file: file
        )
    }

    private func send(
        _ job: Job,
        _ client: JobClient,
        from offset: Int64,
        validator: String?,
        conditional: FetchValidators?
    ) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(of: job, method: .GET)
        if offset > 0, let validator {
            request.headers.replaceOrAdd(name: "range", value: "bytes=\(offset)-")
            request.headers.replaceOrAdd(name: "if-range", value: validator)
        } else if let conditional {
            if let etag = conditional.etag { request.headers.replaceOrAdd(name: "if-none-match", value: etag) }
            if let lastModified = conditional.lastModified {
                request.headers.replaceOrAdd(name: "if-modified-since", value: lastModified)
            }
        }
        do {
            return try await client.execute(request, timeout: settings.total(for: job))
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw TransferFailures.classify(error)
        }
    }

    /// Refuses what is larger than the job allows, or than the space left. `free` is what the
    /// staging file's filesystem had as the attempt opened it, or nil to ask now.
    private func checkLimits(
        _ job: Job,
        total: Int64?,
        offset: Int64,
        destination: String,
        free known: Int64?
    ) async throws {
        let cap = job.spec.payload.fetch?.maxBytes ?? settings.maxFetchBytes
        if let total, total > cap {
            throw JobFailure(
                code: "too_large",
                message: "the file is \(total) bytes; max_bytes is \(cap)",
                retryable: false
            )
        }
        if let expected = job.spec.payload.fetch?.expectedBytes, let total, total != expected {
            throw JobFailure(
                code: "size_mismatch",
                message: "the server offers \(total) bytes, expected \(expected)",
                retryable: false
            )
        }
        guard let needed = (total ?? job.spec.payload.fetch?.expectedBytes).map({ $0 - offset }), needed > 0 else {
            return
        }
        let directory = PathText.directory(of: destination)
        let free: Int64
        if let known { free = known } else { free = try await files.freeBytes(in: directory, owner: job.owner) }
        if free < needed {
            throw JobFailure(
                code: "no_space",
                message: "\(needed) bytes needed in \(directory), \(free) free; free some space",
                retryable: true
            )
        }
    }

    /// Whether the answer to a resumed request rules out continuing the partial file, so that
    /// it goes and the whole resource is asked for again:
    /// - `416`: the partial file already reached the end (a stop between the last byte and the
    ///   rename) or the resource shrank; failing for good would be wrong.
    /// - a `206` of a range not asked for.
    /// - a `206` of another version: a server that ignores `If-Range` answers 206 even after the
    ///   resource changed, and splicing its bytes onto the old ones would make a file that never
    ///   existed.
    static func cannotContinue(_ response: HTTPClientResponse, from offset: Int64, validator: String?) -> Bool {
        switch response.status {
        case .rangeNotSatisfiable: true
        case .partialContent: rangeStart(response.headers) != offset || !continues(validator, response.headers)
        default: false
        }
    }

    /// What a resumed request names in `If-Range`: a strong `ETag` (a weak one may not be used
    /// for ranges), else a strong `Last-Modified`: one at least a second before the answer's
    /// `Date` (RFC 9110, 8.8.2.2; our clock when the server sends none). A file changed within
    /// the second it was served keeps its date, so resuming on it could splice two versions;
    /// without a strong validator the download is not resumed but started over.
    static func resumeValidator(_ headers: HTTPHeaders, now: Date = Date()) -> String? {
        if let etag = headers.first(name: "etag"), !etag.hasPrefix("W/") { return etag }
        guard let lastModified = headers.first(name: "last-modified"), let modified = HTTPDate.parse(lastModified)
        else { return nil }
        let served = headers.first(name: "date").flatMap(HTTPDate.parse) ?? now
        return served.timeIntervalSince(modified) >= 1 ? lastModified : nil
    }

    /// Whether a `206` is of the version the partial file was downloaded under. Byte-for-byte
    /// equality with its `ETag` is the strong comparison (a weak tag never equals the stored
    /// strong one); a stored `Last-Modified` matches the response's. A response with no
    /// validator at all cannot be told apart and is taken at its word.
    static func continues(_ validator: String?, _ headers: HTTPHeaders) -> Bool {
        let etag = headers.first(name: "etag")
        let lastModified = headers.first(name: "last-modified")
        if etag == nil && lastModified == nil { return true }
        return validator != nil && (validator == etag || validator == lastModified)
    }

    /// The first byte of a `Content-Range: bytes START-END/TOTAL`.
    static func rangeStart(_ headers: HTTPHeaders) -> Int64? {
        guard let value = headers.first(name: "content-range"), value.hasPrefix("bytes ") else { return nil }
        return value.dropFirst(6).split(separator: "-").first.flatMap { Int64($0) }
    }

    /// The whole resource's length: from `Content-Range` on 206, else offset + `Content-Length`.
    /// A range with an unknown total (`bytes 400-999/*`) still says where this response ends:
    /// a body that stops short of it is a truncated download, not a complete one.
    static func totalLength(_ headers: HTTPHeaders, offset: Int64) -> Int64? {
        if let range = headers.first(name: "content-range"), let slash = range.lastIndex(of: "/") {
            let total = range[range.index(after: slash)...]
            guard total == "*" else { return Int64(total) }
            let span = range[..<slash]
            guard let dash = span.lastIndex(of: "-"), let last = Int64(span[span.index(after: dash)...]), last < .max
            else { return nil }
            return last + 1
        }
        return headers.first(name: "content-length").flatMap(Int64.init).map { $0 + offset }
    }
}

/// Writes a download to its staging file while the next bytes arrive. Chunks are gathered up
/// to 1 MiB (fewer hops to the thread pool); one gathered buffer is written and hashed on the
/// pool while the next one fills, and writes happen in order, so the digest stays right.
struct OverlappedWriter {
    let staging: StagingFile
    let digest: RunningDigest
    private var pending = ByteBuffer()
    private var inFlight: Task<Void, any Error>?

    init(staging: StagingFile, digest: RunningDigest) {
        self.staging = staging
        self.digest = digest
    }

    mutating func add(_ chunk: inout ByteBuffer) async throws {
        pending.writeBuffer(&chunk)
        if pending.readableBytes >= 1 << 20 { try await handOff() }
    }

    /// Waits for the write in flight, then starts writing what has gathered.
    private mutating func handOff() async throws {
        try await settle()
        guard pending.readableBytes > 0 else { return }
        let buffer = pending
        pending = ByteBuffer()
        let (staging, digest) = (self.staging, self.digest)
        // Not a child of the download: a cancelled download still lets its last write finish
        // before the file is closed, so no write ever lands on a reused descriptor.
        inFlight = Task { try await staging.append(buffer, digest: digest) }
    }

    /// Waits until everything handed off is written.
    mutating func settle() async throws {
        guard let write = inFlight else { return }
        inFlight = nil
        try await write.value
    }

    /// Writes everything received so far.
    mutating func finish() async throws {
        try await handOff()
        try await settle()
    }
}
