import LullCore

/// The part of a submission's answer (a `JobView`) that says which job was made and where it stands.
public struct SubmissionReceipt: Decodable, Sendable, Equatable {
    public var id: Int64
    public var state: JobState
}
