import Foundation
import GRDB
import LullCore

/// Maps jobs and events to rows and back. JSON columns use the Swift property names as keys
/// (no key conversion: header names inside a spec must survive untouched).
/// The push payload lives in its own BLOB column so the spec stays small, readable JSON.
struct RowCodec: Sendable {
    /// Specs decoded lately, by their text: a job's spec never changes, and each state change
    /// of a job reads its row again.
    let specs = DecodedSpecs(capacity: 256, largest: 4096)

    func insert(_ row: JobRow, into db: Database) throws -> Job {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO jobs (owner, kind, state, class, label, spec, payload, created_at, updated_at,
                    host, network, requires_ac, min_battery, not_before, deadline, on_deadline, expected_down, expected_up,
                    on_complete_unit, requires_idle)
                VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        )
        try statement.execute(arguments: row.arguments)
        let new = row.new
        return Job(id: JobID(db.lastInsertedRowID), owner: new.owner, spec: new.spec, createdAt: new.createdAt)
    }

    func save(_ job: Job, into db: Database) throws {
        let statement = try db.cachedStatement(
            sql: """
                UPDATE jobs SET state = ?, updated_at = ?, attempts = ?, bytes_done = ?, bytes_total = ?,
                    result = ?, failure = ?, resume = ?, retry_at = ?, stops = ?, last_stop = ? WHERE id = ?
                """
        )
        try statement.execute(arguments: [
            job.state.rawValue, job.updatedAt.timeIntervalSince1970, job.attempts,
            job.progress?.bytesDone, job.progress?.bytesTotal,
            try job.result.map(Self.json), try job.failure.map(Self.json), try job.resume.map(Self.json),
            job.retryAt?.timeIntervalSince1970, job.stops, job.lastStop?.rawValue, job.id.rawValue,
        ])
    }

    func fetchJob(_ id: JobID, from db: Database) throws -> Job? {
        let statement = try db.cachedStatement(sql: "SELECT \(Self.jobColumns) FROM jobs WHERE id = ?")
        guard let row = try Row.fetchOne(statement, arguments: [id.rawValue]) else { return nil }
        return try job(from: row, in: db)
    }

    /// The columns `job(from:)` reads, by position (a name lookup per column per row costs more
    /// than the rest of the row: GRDB compares names without regard to case).
    static let jobColumns = """
        id, owner, spec, payload, state, created_at, updated_at, attempts, bytes_done, bytes_total, \
        result, failure, resume, retry_at, stops, last_stop
        """
    /// How many columns `jobColumns` names: a column a query adds after them is at this index.
    static let jobColumnCount = jobColumns.split(separator: ",").count

    /// A job from a row of `jobColumns`; `UnreadableJob` when its records no longer decode.
    func job(from row: Row, in db: Database) throws -> Job {
        let state = try self.state(row[4])
        do {
            return try decodedJob(from: row, state: state)
        } catch let error as ColumnDecodingError {
            let id = JobID(row[0] as Int64)
            guard let unreadable = try unreadable(id, in: db, problem: error.description) else {
                throw StoreCorruption("job \(id)'s row vanished while it was read")
            }
            throw unreadable
        }
    }

    private func decodedJob(from row: Row, state: JobState) throws -> Job {
        var spec = try specs.spec(row[2]) { try decode(JobSpec.self, from: $0, column: "spec") }
        if let payload: Data = row[3] { spec.payload = spec.payload.attaching([UInt8](payload)) }
        let bytesDone: Int64? = row[8]
        let resultJSON: String? = row[10]
        let failureJSON: String? = row[11]
        let resumeJSON: String? = row[12]
        let retryAt: Double? = row[13]
        let lastStop: String? = row[15]
        return Job(
            id: JobID(row[0] as Int64),
            owner: OwnerID(UInt32(truncatingIfNeeded: row[1] as Int64)),
            spec: spec,
            state: state,
            createdAt: Date(timeIntervalSince1970: row[5]),
            updatedAt: Date(timeIntervalSince1970: row[6]),
            attempts: row[7],
            progress: bytesDone.map { TransferProgress(bytesDone: $0, bytesTotal: row[9]) },
            result: try resultJSON.map { try decode(JobResult.self, from: $0, column: "result") },
            failure: try failureJSON.map { try decode(JobFailure.self, from: $0, column: "failure") },
            resume: try resumeJSON.map { try decode(ResumeState.self, from: $0, column: "resume") },
            retryAt: retryAt.map { Date(timeIntervalSince1970: $0) },
            stops: row[14] ?? 0,
            lastStop: lastStop.flatMap(WaitingReason.Code.init(rawValue:))
        )
    }

    /// The plain columns of job `id`, whatever its records hold; nil when there is no such job.
    func unreadable(_ id: JobID, in db: Database, problem: String) throws -> UnreadableJob? {
        let statement = try db.cachedStatement(
            sql: "SELECT owner, kind, state, class, label, created_at, updated_at, attempts FROM jobs WHERE id = ?"
        )
        guard let row = try Row.fetchOne(statement, arguments: [id.rawValue]) else { return nil }
        let kindName: String = row[1]
        guard let kind = JobKind(rawValue: kindName) else { throw StoreCorruption("unknown job kind \(kindName)") }
        return UnreadableJob(
            id: id,
            owner: OwnerID(UInt32(truncatingIfNeeded: row[0] as Int64)),
            kind: kind,
            state: try state(row[2]),
            jobClass: row[3],
            label: row[4],
            createdAt: Date(timeIntervalSince1970: row[5]),
            updatedAt: Date(timeIntervalSince1970: row[6]),
            attempts: row[7],
            problem: problem
        )
    }

    func saveValidators(for job: Job, into db: Database) throws {
        guard let key = job.spec.payload.contents.conditionalFetch, let result = job.result,
            result.etag != nil || result.lastModified != nil
        else { return }
        let statement = try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO fetch_validators
                    (owner, url, destination, etag, last_modified, updated_at, file, sha256)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """
        )
        try statement.execute(arguments: [
            Int64(job.owner.rawValue), key.url, key.destination, result.etag, result.lastModified,
            job.updatedAt.timeIntervalSince1970, result.file, result.sha256,
        ])
    }

    /// The scheduler's view of a queued row, from the scheduling columns only.
    /// The columns `queuedJob(from:)` reads, in the order it reads them: by position, because
    /// looking columns up by name was a third of start-up with a million queued jobs.
    static let queuedJobColumns = """
        id, owner, kind, class, host, network, requires_ac, min_battery, not_before, deadline, \
        on_deadline, expected_down, expected_up, retry_at, requires_idle
        """

    func queuedJob(from row: Row) -> QueuedJob {
        let network: String? = row[5]
        let onDeadline: String? = row[10]
        let notBefore: Double? = row[8]
        let deadline: Double? = row[9]
        let retryAt: Double? = row[13]
        return QueuedJob(
            id: JobID(row[0] as Int64),
            owner: OwnerID(UInt32(truncatingIfNeeded: row[1] as Int64)),
            kind: JobKind(rawValue: row[2]) ?? .fetch,
            className: row[3],
            host: row[4],
            constraints: JobConstraints(
                network: network.flatMap(JobConstraints.Network.init(rawValue:)) ?? .any,
                requiresAC: row[6],
                minBattery: row[7],
                requiresIdle: row[14]
            ),
            notBefore: notBefore.map { Date(timeIntervalSince1970: $0) },
            backoffUntil: retryAt.map { Date(timeIntervalSince1970: $0) },
            deadline: deadline.map { Date(timeIntervalSince1970: $0) },
            onDeadline: onDeadline.flatMap(DeadlineAction.init(rawValue:)) ?? .default,
            expectedBytesDown: row[11],
            expectedBytesUp: row[12]
        )
    }

    func appendEvent(
        for job: Job,
        type: JobEventType,
        time: Date,
        detail: JobEventDetail?,
        into db: Database
    ) throws -> JobEvent {
        try appendEvent(
            for: job.id,
            owner: job.owner,
            state: job.state,
            type: type,
            time: time,
            detail: detail,
            into: db
        )
    }

    /// The same, from the columns alone, for a change made without reading the whole row.
    func appendEvent(
        for id: JobID,
        owner: OwnerID,
        state: JobState,
        type: JobEventType,
        time: Date,
        detail: JobEventDetail?,
        into db: Database
    ) throws -> JobEvent {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO events (job_id, owner, time, type, state, detail) VALUES (?, ?, ?, ?, ?, ?)
                """
        )
        try statement.execute(arguments: [
            id.rawValue, Int64(owner.rawValue), time.timeIntervalSince1970, type.rawValue, state.rawValue,
            try detail.map(Self.json),
        ])
        // The event as a later read returns it, since followers are served these from memory:
        // the time through the column's Double, and no failure's `result` (not stored).
        var stored = detail
        stored?.failure?.result = nil
        return JobEvent(
            seq: db.lastInsertedRowID,
            jobID: id,
            owner: owner,
            time: Date(timeIntervalSince1970: time.timeIntervalSince1970),
            type: type,
            state: state,
            detail: stored
        )
    }

    /// The event, or nil for one whose type or state this lulld does not know: a newer lulld
    /// wrote it into a store of the same schema, and went back. Its clients could not read it
    /// either; a page that failed on it would stop every follower there.
    func event(from row: Row) throws -> JobEvent? {
        guard let type = JobEventType(rawValue: row["type"]), let state = JobState(rawValue: row["state"]) else {
            return nil
        }
        let detailJSON: String? = row["detail"]
        return JobEvent(
            seq: row["seq"],
            jobID: JobID(row["job_id"]),
            owner: OwnerID(UInt32(truncatingIfNeeded: row["owner"] as Int64)),
            time: Date(timeIntervalSince1970: row["time"]),
            type: type,
            state: state,
            detail: try detailJSON.map(eventDetail)
        )
    }

    /// An event's detail; one that no longer decodes (a manual edit, a damaged page) is replaced
    /// by a message saying so, since a page that failed on it would stop every follower there.
    private func eventDetail(_ json: String) throws -> JobEventDetail {
        do {
            return try decode(JobEventDetail.self, from: json, column: "detail")
        } catch let error as ColumnDecodingError {
            return JobEventDetail(message: "this event's stored detail cannot be read (\(error))")
        }
    }

    private func state(_ raw: String) throws -> JobState {
        guard let state = JobState(rawValue: raw) else { throw StoreCorruption("unknown job state \(raw)") }
        return state
    }

    /// The JSON text of a result, failure, resume point or event detail column, in their
    /// `Encodable` form under a default `JSONEncoder` (see `JobRecords+JSONWritable`).
    static func json<T: JSONWritable>(_ value: T) throws -> String {
        var json = JSONWriter(capacity: 256, encoder: JSONEncoder.init)
        try value.write(to: &json)
        guard !json.wroteNonFiniteNumber else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(codingPath: [], debugDescription: "a NaN or an infinity in \(T.self)")
            )
        }
        return String(decoding: json.bytes, as: UTF8.self)
    }

    private func decode<T: Decodable>(_ type: T.Type, from json: String) throws -> T {
        let decoder = JSONDecoder()
        return try decoder.decode(type, from: Data(json.utf8))
    }

    /// The same, naming the column when it fails (see `ColumnDecodingError`).
    private func decode<T: Decodable>(_ type: T.Type, from json: String, column: String) throws -> T {
        do {
            return try decode(type, from: json)
        } catch let error as DecodingError {
            throw ColumnDecodingError(column: column, error: error)
        }
    }
}

/// A new job's `jobs` row, encoded ahead of its commit: the spec's JSON and the host are
/// computed by the submitting task, so the committer thread holds the write lock only for SQL.
struct JobRow: Sendable {
    let new: NewJob
    let arguments: StatementArguments

    init(_ new: NewJob) throws {
        self.new = new
        var spec = new.spec
        let contents = spec.payload.contents
        let payload = contents.detachedBytes
        if payload != nil { spec.payload = spec.payload.attaching(nil) }
        let time = new.createdAt.timeIntervalSince1970
        let constraints = spec.constraints ?? .none
        arguments = [
            Int64(new.owner.rawValue), spec.kind.rawValue, spec.jobClass, spec.label,
            try spec.storedJSON(), payload.map { Data($0) }, time, time,
            contents.host ?? "", constraints.network == .any ? nil : constraints.network.rawValue,
            constraints.requiresAC,
            constraints.minBattery, spec.notBefore?.timeIntervalSince1970, spec.deadline?.timeIntervalSince1970,
            spec.onDeadline?.rawValue, contents.expectedBytesDown, contents.expectedBytesUp, spec.onCompleteUnit,
            constraints.requiresIdle,
        ]
    }
}

/// The store holds something this version cannot read.
public struct StoreCorruption: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
