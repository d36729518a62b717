import AsyncHTTPClient
import Foundation
import LullCore
import NIOCore
import NIOHTTP1

/// Sends a small inline payload. Every attempt carries the job's `Idempotency-Key`, so a server
/// that honours it applies a retried push once.
public struct PushTransfer: TransferEngine {
    private let clients: HTTPClients
    private let settings: TransferSettings
    /// For the job's `ca_file`, read with its owner's rights.
    private let files: FileAccess

    public init(clients: HTTPClients, settings: TransferSettings = TransferSettings(), files: FileAccess = FileAccess())
    {
        self.clients = clients
        self.settings = settings
        self.files = files
    }

    public func run(_ job: Job, context: TransferContext) async throws -> JobResult {
        guard let push = job.spec.payload.push else {
            throw JobFailure(code: "invalid_job", message: "not a push job", retryable: false)
        }
        var request = HTTPClientRequest(of: job, method: HTTPMethod(rawValue: push.method ?? "POST"))
        if let key = push.idempotencyKey { request.headers.replaceOrAdd(name: "idempotency-key", value: key) }
        let body = push.body ?? []
        if let contentType = push.contentType {
            request.headers.replaceOrAdd(name: "content-type", value: contentType)
        }
        request.body = .bytes(ByteBuffer(bytes: body))
        let watchdog = TransferWatchdog(for: job, settings: settings, sleeper: clients.sleeper)
        let maxBody = settings.maxResponseBodyBytes
        let timeout = settings.total(for: job)
        let bodyBytes = Int64(body.count)
        do {
            let client = try await clients.client(for: job, settings: settings, files: files)
            return try await watchdog.guarding { [request] in
                // The payload is small and sent in one piece: it waits for its bytes up front.
                if let throttle = context.throttle, !body.isEmpty {
                    try await throttle.admit(body.count) { watchdog.touch() }
                }
                let response = try await client.execute(request, timeout: timeout)
                watchdog.touch()
                try await ResponseCapture.requireSuccess(response, watchdog: watchdog)
                context.progress(TransferProgress(bytesDone: bodyBytes, bytesTotal: bodyBytes))
                return try await ResponseCapture.result(
                    response,
                    maxBody: maxBody,
                    bytes: bodyBytes,
                    watchdog: watchdog
                )
            }
        } catch let failure as JobFailure {
            throw failure
        } catch let failure as FileFailure {
            // The job's ca_file, read as its owner.
            throw failure.jobFailure
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw TransferFailures.classify(error)
        }
    }
}
