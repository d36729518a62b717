// Where kinds are registered: a new kind adds its name to `JobKind`, and to `JobPayload` its
// case, its arm in `contents`, its type in `kinds` and its accessor.

/// A kind's name, as the wire and the store spell it.
public enum JobKind: String, Sendable, Codable, CaseIterable {
    /// Download a URL into a file.
    case fetch
    /// Send a small inline payload.
    case push
    /// Send a file.
    case upload
    /// Run a program.
    case run
}

/// What a job does: one case per kind, each with its own type.
public enum JobPayload: Sendable, Equatable {
    case fetch(FetchJob)
    case push(PushJob)
    case upload(UploadJob)
    case run(RunJob)

    /// The payload through its kind's contract.
    public var contents: any KindPayload {
        switch self {
        case .fetch(let job): job
        case .push(let job): job
        case .upload(let job): job
        case .run(let job): job
        }
    }

    /// Every kind's payload type.
    public static let kinds: [any KindPayload.Type] = [FetchJob.self, PushJob.self, UploadJob.self, RunJob.self]
}

extension JobPayload {
    public var kind: JobKind {
        switch self {
        case .fetch: FetchJob.kind
        case .push: PushJob.kind
        case .upload: UploadJob.kind
        case .run: RunJob.kind
        }
    }
    public var host: String? { contents.host }

    /// Decodes the payload of a stored spec of `kind` from the spec's own (flat) container.
    public init(kind: JobKind, from decoder: any Decoder) throws {
        guard let type = Self.kinds.first(where: { $0.kind == kind }) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "unknown kind \(kind.rawValue)")
            )
        }
        self = try type.init(from: decoder).payload
    }

    /// The payload with `detachedBytes` put back (see `KindPayload.attaching`).
    public func attaching(_ bytes: [UInt8]?) -> JobPayload { contents.attaching(bytes).payload }
}

extension JobPayload {
    /// The payload as one kind, for code that belongs to that kind (its runner, its view).
    public var fetch: FetchJob? { if case .fetch(let job) = self { job } else { nil } }
    public var push: PushJob? { if case .push(let job) = self { job } else { nil } }
    public var upload: UploadJob? { if case .upload(let job) = self { job } else { nil } }
    public var run: RunJob? { if case .run(let job) = self { job } else { nil } }
}
