import AsyncHTTPClient
import Foundation
import LullAPI
import NIOCore
import NIOFoundationCompat

/// The event stream (`GET /v1/events` as server-sent events), followed across disconnects.
extension LullClient {
    /// Every event after `after`, then new ones as they happen, until the task is cancelled.
    ///
    /// The stream survives the daemon going away: after a dropped connection (a restart, a
    /// crash) it reconnects from the last event it delivered, so no event is missed or repeated.
    /// It keeps trying for `reconnectWithin` after the daemon stops answering, then fails with
    /// `LullClientError.unreachable`. An API error (a bad cursor, say) fails it at once.
    public func followEvents(
        after: Int64,
        reconnectWithin: Duration = .seconds(60)
    ) -> AsyncThrowingStream<EventView, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                var cursor = after
                var unreachableSince: ContinuousClock.Instant?
                var pause = Duration.milliseconds(100)
                do {
                    while !Task.isCancelled {
                        let connected = ContinuousClock.now
                        var delivered = false
                        do {
                            defer {
                                // A stream that ends before it gave anything is no connection
                                // at all: a daemon that takes the stream and drops it every time
                                // must not keep the client reconnecting for ever.
                                if delivered || ContinuousClock.now - connected >= Self.heldLongEnough {
                                    unreachableSince = nil
                                    pause = .milliseconds(100)
                                } else {
                                    unreachableSince = unreachableSince ?? connected
                                    pause = min(pause * 2, .seconds(2))
                                }
                            }
                            try await self.streamEvents(after: cursor) { event in
                                cursor = event.seq
                                delivered = true
                                continuation.yield(event)
                            }
                        } catch LullClientError.unreachable(let path, let reason) {
                            let since = unreachableSince ?? ContinuousClock.now
                            unreachableSince = since
                            if ContinuousClock.now - since > reconnectWithin {
                                throw LullClientError.unreachable(socketPath: path, reason: reason)
                            }
                        } catch let error as LullClientError {
                            throw error
                        } catch  where !Task.isCancelled {
                            // The stream broke mid-way; the cursor says where to pick up.
                        }
                        if let since = unreachableSince, ContinuousClock.now - since > reconnectWithin {
                            throw LullClientError.unreachable(
                                socketPath: self.socketPath,
                                reason: .refused("the daemon took the event stream and closed it, again and again")
                            )
                        }
                        // A pause before reconnecting, so a daemon that is restarting is not hammered.
                        try await Task.sleep(for: pause)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: Task.isCancelled ? nil : error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// How long an event stream that delivered nothing must have stayed open to count as a
    /// connection that worked.
    static let heldLongEnough = Duration.seconds(5)

    private func streamEvents(after: Int64, _ deliver: (EventView) -> Void) async throws {
        let request = try EventLoopExchange.request(
            ControlRequest(
                method: "GET",
                target: try Self.target("/v1/events", [("after", String(after))]),
                headers: [("accept", "text/event-stream")]
            ),
            socketPath: socketPath
        )
        let response: HTTPClientResponse
        do {
            response = try await streamHTTP.client.execute(request, timeout: .hours(24 * 365))
        } catch {
            throw EventLoopExchange.unreachable(error, socketPath: socketPath, waited: eventStreamSilence)
        }
        guard response.status == .ok else {
            let body = try await response.body.collect(upTo: 1 << 20)
            throw Self.apiError(ControlAnswer(status: Int(response.status.code), body: Array(buffer: body)))
        }
        var parser = ServerSentEventParser()
        let decoder = WireJSON.decoder()
        for try await chunk in response.body {
            for message in parser.feed(chunk.readableBytesView) {
                // Not a broken connection: reconnecting from the same cursor would read the
                // same event again, for ever (an older client following a newer daemon).
                do {
                    deliver(try decoder.decode(EventView.self, from: Data(message.data.utf8)))
                } catch {
                    throw LullClientError.protocolViolation(
                        "event \(message.id ?? "?") could not be read (\(error)); is lullctl older than lulld?"
                    )
                }
            }
        }
    }
}
