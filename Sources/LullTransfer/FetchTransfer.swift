import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import LullCore
import NIOCore
import NIOHTTP1

/// Downloads a URL into a staging file beside the destination, hashing as it streams, and
/// renames it into place only once complete and flushed: the destination never holds a partial file.
public struct FetchTransfer: TransferEngine {
    private let client: HTTPClient
    private let timeouts: TransferTimeouts

    public init(client: HTTPClient, timeouts: TransferTimeouts = TransferTimeouts()) {
        self.client = client
        self.timeouts = timeouts
    }

    public func run(_ job: Job, progress: @escaping @Sendable (TransferProgress) -> Void) async throws -> JobResult {
        guard let destination = job.spec.destination else {
            throw JobFailure(code: "invalid_job", message: "fetch job has no destination", retryable: false)
        }
        var request = HTTPClientRequest(url: job.spec.url)
        request.method = .GET
        for (name, value) in job.spec.headers ?? [:] { request.headers.add(name: name, value: value) }

        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: timeouts.total)
        } catch {
            throw TransferFailures.classify(error)
        }
        guard (200..<300).contains(response.status.code) else {
            throw TransferFailures.httpStatus(response.status)
        }
        let expected = response.headers.first(name: "content-length").flatMap(Int64.init)
        let staging: StagingFile
        do {
            staging = try await StagingFile.create(for: destination, jobID: job.id.rawValue)
        } catch let error as FileFailure {
            throw JobFailure(code: "destination_unwritable", message: error.description, retryable: false)
        }
        do {
            var hasher = SHA256()
            var received: Int64 = 0
            for try await chunk in response.body {
                chunk.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                try await staging.append(chunk)
                received += Int64(chunk.readableBytes)
                progress(TransferProgress(bytesDone: received, bytesTotal: expected))
            }
            if let expected, expected != received {
                throw JobFailure(
                    code: "truncated", message: "server promised \(expected) bytes but sent \(received)", retryable: true)
            }
            try await staging.commit()
            let digest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
            return JobResult(httpStatus: Int(response.status.code), bytes: received, sha256: digest, path: destination)
        } catch {
            await staging.discard()
            if let failure = error as? JobFailure { throw failure }
            if let failure = error as? FileFailure {
                throw JobFailure(code: "file_error", message: failure.description, retryable: false)
            }
            if Task.isCancelled { throw CancellationError() }
            throw TransferFailures.classify(error)
        }
    }
}

/// How long a transfer may take: to connect, between two reads, and in all.
public struct TransferTimeouts: Sendable {
    public var connect: TimeAmount
    public var idle: TimeAmount
    public var total: TimeAmount

    public init(connect: TimeAmount = .seconds(15), idle: TimeAmount = .seconds(60), total: TimeAmount = .hours(24)) {
        self.connect = connect
        self.idle = idle
        self.total = total
    }
}
