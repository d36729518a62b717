import LullCore

extension JobView {
    /// A job whose stored row no longer decodes: its plain columns, and an `error` that says
    /// what is wrong and what to do (`code` `unreadable_job`).
    public init(_ unreadable: UnreadableJob) {
        id = unreadable.id.rawValue
        kind = unreadable.kind
        state = unreadable.state
        ownerUid = unreadable.owner.rawValue
        url = ""
        label = unreadable.label
        jobClass = unreadable.jobClass
        createdAt = unreadable.createdAt
        updatedAt = unreadable.updatedAt
        attempts = unreadable.attempts
        error = FailureView(
            JobFailure(
                code: "unreadable_job",
                message: "\(unreadable); \(unreadable.remedy)",
                retryable: false
            )
        )
    }
}
