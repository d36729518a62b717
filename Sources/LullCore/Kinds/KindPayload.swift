/// The contract a job kind's payload implements: what the scheduler, the validator and the
/// store ask of a kind without knowing which one it is. Everything else about a kind (its wire
/// fields, its view, its runner, its `lullctl submit` subcommand) lives beside it in its folder.
public protocol KindPayload: Sendable, Equatable, Codable {
    static var kind: JobKind { get }
    /// This payload as the job's `JobPayload`.
    var payload: JobPayload { get }
    /// The lowercased host the job talks to, for per-host limits; nil for work that has none.
    var host: String? { get }
    /// Whether a job of this kind may say it needs no network (`network: "none"`): work that
    /// can be done offline, unlike a transfer.
    static var mayNeedNoNetwork: Bool { get }
    /// Bytes the job expects to receive and to send, for budgets and coalescing.
    var expectedBytesDown: Int64? { get }
    var expectedBytesUp: Int64? { get }
    /// Every text the client chose, by wire field, for the control-character check.
    var texts: [(field: String, text: String?)] { get }
    /// HTTP request headers the client chose, checked like `texts`.
    var headers: [String: String]? { get }
    /// Checks what is the kind's own; common settings are checked by `JobSpecValidator`.
    func validate(with validator: JobSpecValidator) throws(ValidationError)
    /// Checks what depends on who submits the job (nothing, for most kinds).
    func validate(owner: OwnerID, with validator: JobSpecValidator) throws(ValidationError)
    /// Writes the kind's members of the stored spec that belong in `section`.
    func writeStored(_ section: StoredSpecSection, to json: inout JSONWriter)
    /// Bytes the store keeps beside the spec's JSON rather than in it (a push body).
    var detachedBytes: [UInt8]? { get }
    func attaching(_ bytes: [UInt8]?) -> Self
    /// The fetch whose validators (`ETag`, `Last-Modified`) a later fetch of the same URL into
    /// the same file may send; nil for every other kind.
    var conditionalFetch: ConditionalFetchKey? { get }
    /// Which way the bytes of the job's progress reports move.
    var progressDirection: ByteDirection { get }
    /// A line for the journal naming what the job does ("fetch URL → PATH").
    var summary: String { get }
    /// Journal fields of the record that starts an attempt (`URL=`).
    var journalFields: [String: String] { get }
    /// What the daemon decides once at submission and stores, so every attempt and every view
    /// agrees (a fetch's file mode, a push's idempotency key).
    func prepared() -> Self
    /// The copy a periodic job's next occurrence gets: what must be unique per occurrence is
    /// made anew (`newRequestKey` makes a fresh request identity).
    func nextOccurrence(newRequestKey: () -> String) -> Self
}

extension KindPayload {
    public func validate(owner: OwnerID, with validator: JobSpecValidator) throws(ValidationError) {}
    public var detachedBytes: [UInt8]? { nil }
    public func attaching(_ bytes: [UInt8]?) -> Self { self }
    public var conditionalFetch: ConditionalFetchKey? { nil }
    public static var mayNeedNoNetwork: Bool { false }
    public func prepared() -> Self { self }
    public func nextOccurrence(newRequestKey: () -> String) -> Self { self }
}

/// Where the members of a stored spec go. The stored JSON of release 0.1 interleaves a kind's
/// members with the common ones; writing them back in that order keeps rows written before and
/// after byte-identical. A new kind writes all its members in `trailing`.
public enum StoredSpecSection: Sendable {
    /// After `kind`: url, destination, source, method, headers, contentType, body.
    case target
    /// After `jobClass`: sha256, expectedBytes, maxBytes, uploadProtocol, formField, idempotencyKey.
    case details
    /// After `onDeadline`: expectedBytesUp.
    case bytesUp
    /// After `onCompleteUnit`: fileMode, chunkBytes, caFile, and a new kind's members.
    case trailing
}

/// Which way bytes move, seen from this machine.
public enum ByteDirection: Sendable {
    case received
    case sent
}

/// What identifies a fetch for conditional requests: the same owner, URL and destination.
public struct ConditionalFetchKey: Sendable, Equatable {
    public var url: String
    public var destination: String

    public init(url: String, destination: String) {
        self.url = url
        self.destination = destination
    }
}
