import LullAPI
import LullCore

/// `GET /v1/events`: a page of events as JSON, or a `text/event-stream` that follows them.
extension ControlRouter {
    func events(_ request: ControlRequest) async throws -> ControlResponse {
        try checkQuery(request, allowed: ["after", "limit"])
        let after = try integer(request.query["after"], field: "after", range: 0...Int64.max) ?? 0
        let owner = request.peer.isAdmin ? nil : request.peer.owner
        let pageSize = Int(try integer(request.query["limit"], field: "limit", range: 1...1000) ?? 1000)
        if !request.wantsEventStream {
            let page = try await page(after: after, owner: owner, limit: pageSize)
            let lastSeq = page.readThrough ?? page.items.last?.seq ?? after
            return .encode(.ok, EventPageView(events: page.items.map(EventView.init), lastSeq: lastSeq))
        }
        let slot = try owner.map { owner in
            guard let granted = streams.reserve(for: owner) else {
                throw APIError(
                    .tooManyRequests,
                    code: "too_many_streams",
                    "uid \(owner.rawValue) already has \(streams.perOwner) event streams open, the limit; close one, or read pages with GET /v1/events?after=SEQ (no text/event-stream)"
                )
            }
            return granted
        }
        let hub = self.hub
        let heartbeat = eventStreamHeartbeat
        let sleeper = self.sleeper
        // The slot is held by the closure: given back when the stream ends, or if it never starts.
        return .stream(contentType: "text/event-stream") { [slot] writer in
            withExtendedLifetime(slot) {}
            var cursor = after
            // The hub's sequence number for this follower as of our last look; anything it may
            // see that is committed later is above it.
            var known = hub.latest(for: owner)
            try await writer.write(": lull event stream after seq \(after)\n\n")
            while !Task.isCancelled {
                let page = try await page(after: cursor, owner: owner, limit: pageSize)
                if !page.items.isEmpty { try await writer.write(try Self.streamText(page.items)) }
                cursor = page.readThrough ?? page.items.last?.seq ?? cursor
                if page.items.count < pageSize, !page.cutShort {
                    let seen = await Self.wait(hub, after: known, for: owner, atMost: heartbeat, sleeper: sleeper)
                    if seen == known { try await writer.write(": keep-alive\n\n") }
                    known = seen
                }
            }
        }
    }

    /// The hub's next sequence number past `known`, or `known` itself after `atMost`.
    private static func wait(
        _ hub: EventHub,
        after known: Int64,
        for owner: OwnerID?,
        atMost limit: Duration,
        sleeper: any Sleeper
    ) async -> Int64 {
        await withTaskGroup(of: Int64.self) { group in
            group.addTask { await hub.wait(after: known, for: owner) }
            group.addTask {
                try? await sleeper.sleep(for: limit)
                return known
            }
            defer { group.cancelAll() }
            return await group.next() ?? known
        }
    }

    /// Events after `seq`: the hub's tail when it reaches back that far, else the store.
    private func page(after seq: Int64, owner: OwnerID?, limit: Int) async throws -> StorePage<JobEvent> {
        // The hub's tail is bounded in bytes as a whole.
        if let recent = hub.recent(after: seq, for: owner, limit: limit) { return StorePage(recent) }
        return try await store.events(after: seq, owner: owner, limit: limit)
    }

    /// A page of events as server-sent events, written in one piece.
    static func streamText(_ events: [JobEvent]) throws -> String {
        var text: [UInt8] = []
        text.reserveCapacity(400 * events.count)
        for event in events {
            text.append(contentsOf: "id: \(event.seq)\nevent: \(event.type.rawValue)\ndata: ".utf8)
            text.append(contentsOf: try EventView(event).jsonBytes())
            text.append(contentsOf: "\n\n".utf8)
        }
        return String(decoding: text, as: UTF8.self)
    }
}
