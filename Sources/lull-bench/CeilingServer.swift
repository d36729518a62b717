import Foundation
import GRDBSQLite
import LullCore
import LullStore
import LullTransfer
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// The most a durable submission over the socket can get on this machine: a server that does
/// only the part no implementation of `POST /v1/jobs` can skip, and nothing of lulld's own.
///
/// It reads the request with NIO's HTTP/1.1 decoder on a plain channel handler (no
/// `NIOAsyncChannel`, no task per request), scans the flat JSON object by hand, inserts the job
/// row and its `submitted` event with raw SQLite statements into a database with lulld's schema
/// (WAL, `synchronous = FULL`, lulld's `WALCheckpointer` beside the writer), and answers `201`
/// with a job view of about the same size as lulld's. Validation is three checks (the kind, the
/// URL's scheme, an absolute destination); there is no quota, scheduler, event fan-out or
/// metrics. Group commit is one writer thread taking everything queued since its last commit,
/// as lulld's store does. With `inline`, the event loop commits each request itself: no thread
/// hand-off at all, which lulld may not do (an fsync would stall every connection on that loop).
///
/// So a rate this server cannot reach is out of reach for lulld on the same machine.
///
/// With `checked`, it does as well what lulld's features ask of every submission
/// (`CeilingChecks`), with lulld's own code and nothing of its architecture (no
/// `NIOAsyncChannel`, tasks, GRDB, scheduler, event fan-out or metrics). What that server cannot
/// reach, a Lull that checks submissions with this code cannot reach.
///
/// With `path-checked`, it is the bare server plus lulld's destination check on NIO's thread
/// pool, the one check an event loop may not make (its calls can block). With `lean-checked`,
/// lulld's size limit, validation, destination check and quota follow the bare server's own
/// scan of the body (which refuses all but a flat object of strings, in place of the strict-key
/// and wrong-kind checks of lulld's decoding) and the row stores the body as the bare one does.
enum CeilingServer {
    enum Mode: String {
        case bare, inline, checked
        case pathChecked = "path-checked"
        case leanChecked = "lean-checked"
    }

    static func serve(socket: String, database: String, mode: Mode) throws -> Never {
        let inline = mode == .inline
        // One for the server: the owner's quota counts across connections.
        let checks = CeilingChecks()
        let parent = getppid()
        // lulld's own schema, migrations and all; then the store is closed and only raw
        // statements touch the file.
        _ = try SQLiteJobStore(path: database)
        let writer = try CeilingWriter(path: database)
        if !inline {
            let thread = Thread { writer.run() }
            thread.start()
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        unlink(socket)
        _ = try ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: false)
                    try channel.pipeline.syncOperations.addHandler(
                        CeilingHandler(writer: writer, mode: mode, checks: checks)
                    )
                }
            }
            .bind(unixDomainSocketPath: socket).wait()
        // Ends with the lull-bench that started it, however that one ends (it is re-parented then).
        while getppid() == parent { sleep(1) }
        exit(0)
    }
}

/// One submission waiting for its commit.
private struct PendingSubmission: Sendable {
    var spec: String
    var kind: String
    var url: String
    var destination: String
    var label: String?
    var context: NIOLoopBound<ChannelHandlerContext>
}

/// Owns the SQLite connection. Submissions queue under a condition lock; `run` commits them in
/// groups on its own thread and hands each loop its answers in one `execute`.
private final class CeilingWriter: @unchecked Sendable {
    private let pending = ConditionLock(value: 0)
    private var queue: [PendingSubmission] = []
    private let connectionLock = NIOLock()
    private var connection: OpaquePointer?
    private var insertJob: OpaquePointer?
    private var insertEvent: OpaquePointer?
    /// lulld's own: checkpoints beside the writer, not inside its commits.
    private let checkpointer: WALCheckpointer

    init(path: String) throws {
        checkpointer = WALCheckpointer(path: path, threshold: 1_000)
        guard sqlite3_open(path, &connection) == SQLITE_OK else { throw BenchError("cannot open \(path)") }
        try execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL")
        checkpointer.attach(toConnection: connection)
        try prepare(
            """
            INSERT INTO jobs (owner, kind, state, class, label, spec, created_at, updated_at, host)
            VALUES (?, ?, 'queued', 'default', ?, ?, ?, ?, ?)
            """,
            into: &insertJob
        )
        try prepare(
            """
            INSERT INTO events (job_id, owner, time, type, state) VALUES (?, ?, ?, 'submitted', 'queued')
            """,
            into: &insertEvent
        )
    }

    func submit(_ submission: PendingSubmission) {
        pending.lock()
        queue.append(submission)
        pending.unlock(withValue: 1)
    }

    /// Commits one submission on the caller's thread (the `inline` mode).
    func commitNow(_ submission: PendingSubmission) -> Int64 {
        connectionLock.withLock { commit([submission])[0] }
    }

    func run() {
        while true {
            pending.lock(whenValue: 1)
            let batch = queue
            queue.removeAll(keepingCapacity: true)
            pending.unlock(withValue: 0)
            let ids = connectionLock.withLock { commit(batch) }
            var byLoop: [ObjectIdentifier: (loop: any EventLoop, answers: [(PendingSubmission, Int64)])] = [:]
            for (submission, id) in zip(batch, ids) {
                let loop = submission.context.eventLoop
                byLoop[ObjectIdentifier(loop), default: (loop, [])].answers.append((submission, id))
            }
            for (loop, answers) in byLoop.values {
                loop.execute {
                    for (submission, id) in answers { CeilingHandler.answer(submission, id: id) }
                }
            }
        }
    }

    private func commit(_ batch: [PendingSubmission]) -> [Int64] {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let now = Date().timeIntervalSince1970
        var ids: [Int64] = []
        ids.reserveCapacity(batch.count)
        do {
            try execute("BEGIN IMMEDIATE")
            for submission in batch {
                sqlite3_bind_int64(insertJob, 1, 0)
                sqlite3_bind_text(insertJob, 2, submission.kind, -1, transient)
                if let label = submission.label {
                    sqlite3_bind_text(insertJob, 3, label, -1, transient)
                } else {
                    sqlite3_bind_null(insertJob, 3)
                }
                sqlite3_bind_text(insertJob, 4, submission.spec, -1, transient)
                sqlite3_bind_double(insertJob, 5, now)
                sqlite3_bind_double(insertJob, 6, now)
                sqlite3_bind_text(insertJob, 7, "127.0.0.1", -1, transient)
                try step(insertJob)
                let id = sqlite3_last_insert_rowid(connection)
                ids.append(id)
                sqlite3_bind_int64(insertEvent, 1, id)
                sqlite3_bind_int64(insertEvent, 2, 0)
                sqlite3_bind_double(insertEvent, 3, now)
                try step(insertEvent)
            }
            try execute("COMMIT")
        } catch {
            // A benchmark's server: a failed commit is a broken run, not something to serve around.
            fatalError("ceiling server: \(error)")
        }
        return ids
    }

    private func step(_ statement: OpaquePointer?) throws {
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_DONE else {
            throw BenchError(String(cString: sqlite3_errmsg(connection)))
        }
    }

    private func execute(_ sql: String) throws {
        guard sqlite3_exec(connection, sql, nil, nil, nil) == SQLITE_OK else {
            throw BenchError("\(sql): \(String(cString: sqlite3_errmsg(connection)))")
        }
    }

    private func prepare(_ sql: String, into statement: inout OpaquePointer?) throws {
        guard sqlite3_prepare_v2(connection, sql, -1, &statement, nil) == SQLITE_OK else {
            throw BenchError("\(sql): \(String(cString: sqlite3_errmsg(connection)))")
        }
    }
}

private final class CeilingHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let writer: CeilingWriter
    private let mode: CeilingServer.Mode
    private let checks: CeilingChecks
    private var body = ByteBuffer()

    init(writer: CeilingWriter, mode: CeilingServer.Mode, checks: CeilingChecks) {
        self.writer = writer
        self.mode = mode
        self.checks = checks
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            body.clear()
        case .body(var part):
            body.writeBuffer(&part)
        case .end where mode == .checked:
            checkedSubmit(context)
        case .end:
            guard let fields = FlatJSONObject.strings(in: body) else {
                return Self.write(
                    context,
                    status: .badRequest,
                    json: #"{"error":{"code":"invalid_json","message":"not a flat JSON object of strings"}}"#
                )
            }
            guard let kind = fields["kind"], kind == "fetch",
                let url = fields["url"], url.hasPrefix("http://") || url.hasPrefix("https://"),
                let destination = fields["destination"], destination.hasPrefix("/")
            else {
                return Self.write(
                    context,
                    status: .badRequest,
                    json: #"{"error":{"code":"invalid_field","message":"kind, url or destination"}}"#
                )
            }
            let submission = PendingSubmission(
                spec: String(buffer: body),
                kind: kind,
                url: url,
                destination: destination,
                label: fields["label"],
                context: NIOLoopBound(context, eventLoop: context.eventLoop)
            )
            switch mode {
            case .inline: Self.answer(submission, id: writer.commitNow(submission))
            case .pathChecked: Self.checkPath(of: submission, as: checks.owner, on: context.eventLoop, then: writer)
            case .leanChecked: leanCheckedSubmit(submission, on: context.eventLoop)
            case .bare, .checked: writer.submit(submission)
            }
        }
    }

    /// lulld's checks of a submission (`CeilingChecks`), then the writer.
    private func checkedSubmit(_ context: ChannelHandlerContext) {
        let checked: CeilingChecks.Checked
        switch checks.check(body) {
        case .success(let passed): checked = passed
        case .failure(let refusal): return Self.refuse(context, refusal)
        }
        let pending = PendingSubmission(
            spec: checked.stored,
            kind: checked.spec.kind.rawValue,
            url: checked.url,
            destination: checked.destination,
            label: checked.spec.label,
            context: NIOLoopBound(context, eventLoop: context.eventLoop)
        )
        let writer = self.writer
        checks.finish(checked, on: context.eventLoop).whenSuccess { refusal in
            if let refusal { return Self.refuse(pending.context.value, refusal) }
            writer.submit(pending)
        }
    }

    /// The destination checked off the event loop, as lulld does, then the writer.
    private static func checkPath(
        of submission: PendingSubmission,
        as owner: OwnerID,
        on loop: any EventLoop,
        then writer: CeilingWriter
    ) {
        NIOThreadPool.singleton.runIfActive(eventLoop: loop) {
            FileAccess.destinationProblem(submission.destination, owner: owner)
        }.whenComplete { result in
            guard case .success(let problem?) = result else { return writer.submit(submission) }
            refuse(submission.context.value, CeilingChecks.refusal(problem))
        }
    }

    /// lulld's validation, path check and quota after the bare server's scan, then the writer.
    private func leanCheckedSubmit(_ submission: PendingSubmission, on loop: any EventLoop) {
        let spec = JobSpec(
            .fetch(FetchJob(url: submission.url, destination: submission.destination)),
            label: submission.label
        )
        if let refusal = checks.validate(spec, bodyBytes: submission.spec.utf8.count) {
            return Self.refuse(submission.context.value, refusal)
        }
        let checked = CeilingChecks.Checked(
            spec: spec,
            url: submission.url,
            destination: submission.destination,
            stored: submission.spec
        )
        let writer = self.writer
        checks.finish(checked, on: loop).whenSuccess { refusal in
            if let refusal { return Self.refuse(submission.context.value, refusal) }
            writer.submit(submission)
        }
    }

    private static func refuse(_ context: ChannelHandlerContext, _ refusal: CeilingChecks.Refusal) {
        let json = (try? JSONEncoder().encode(refusal.body)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        write(context, status: refusal.status, json: json)
    }

    /// A `201` with a job view of about the size of lulld's.
    static func answer(_ submission: PendingSubmission, id: Int64) {
        let label = submission.label.map { #""label":"\#($0)","# } ?? ""
        write(
            submission.context.value,
            status: .created,
            json: """
                {"id":\(id),"kind":"\(submission.kind)","state":"queued","class":"default",\(label)\
                "url":"\(submission.url)","destination":"\(submission.destination)","mode":"0644",\
                "owner":0,"attempts":0,"created_at":"2026-11-22T03:00:00.000Z","updated_at":"2026-11-22T03:00:00.000Z",\
                "waiting_for":["a free slot"],"retry":{"max_attempts":5,"initial_delay_seconds":30,"max_delay_seconds":3600},\
                "timeouts":{"connect_seconds":30,"idle_seconds":60}}
                """
        )
    }

    private static func write(_ context: ChannelHandlerContext, status: HTTPResponseStatus, json: String) {
        var out = context.channel.allocator.buffer(capacity: json.utf8.count)
        out.writeString(json)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: String(out.readableBytes))
        context.write(
            NIOAny(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
            promise: nil
        )
        context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(out))), promise: nil)
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
    }
}

/// The members of a flat JSON object whose values are all strings without escapes: the
/// benchmark's submissions and nothing more (nil for anything else).
private enum FlatJSONObject {
    static func strings(in buffer: ByteBuffer) -> [String: String]? {
        buffer.withUnsafeReadableBytes { bytes -> [String: String]? in
            var fields: [String: String] = [:]
            var index = 0
            func skipSpace() {
                while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
            }
            func expect(_ byte: UInt8) -> Bool {
                skipSpace()
                guard index < bytes.count, bytes[index] == byte else { return false }
                index += 1
                return true
            }
            func string() -> String? {
                guard expect(0x22) else { return nil }
                let start = index
                while index < bytes.count, bytes[index] != 0x22 {
                    if bytes[index] == 0x5C || bytes[index] < 0x20 { return nil }
                    index += 1
                }
                guard index < bytes.count else { return nil }
                defer { index += 1 }
                return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            }
            guard expect(0x7B) else { return nil }
            while true {
                guard let key = string(), expect(0x3A), let value = string() else { return nil }
                fields[key] = value
                if expect(0x7D) { return fields }
                guard expect(0x2C) else { return nil }
            }
        }
    }
}
