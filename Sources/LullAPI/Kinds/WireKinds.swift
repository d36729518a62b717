import LullCore

/// What a kind adds on the wire: its payload from a submission's fields, and its fields in a
/// job's view. Each kind conforms in its own folder; the kinds are those `JobPayload` registers.
protocol WireKind: KindPayload {
    /// The payload a submission describes; refuses fields that belong to other kinds.
    init(_ submission: JobSubmission) throws(ValidationError)
    /// Fills in the view's fields that are the kind's own.
    func describe(_ view: inout JobView)
    /// Whether a submission of the kind names a `url` (every transfer does; a run job does not).
    static var takesURL: Bool { get }
}

extension WireKind {
    static var takesURL: Bool { true }
}

enum WireKinds {
    /// Found once, so that a submission looks its kind up instead of casting a type each time.
    private static let byKind: [JobKind: any WireKind.Type] = Dictionary(
        uniqueKeysWithValues: JobPayload.kinds.compactMap { type in
            (type as? any WireKind.Type).map { (type.kind, $0) }
        }
    )

    static func type(of kind: JobKind) -> (any WireKind.Type)? { byKind[kind] }
}

extension JobView {
    mutating func describe(_ payload: JobPayload) {
        (payload.contents as? any WireKind)?.describe(&self)
    }
}
