/// Which jobs a listing returns. Listings are paged by id: `after` is the last id already seen.
public struct JobFilter: Sendable, Equatable {
    /// nil means every owner (root or an admin only).
    public var owner: OwnerID?
    public var state: JobState?
    public var label: String?
    public var jobClass: String?
    public var after: JobID?
    public var limit: Int

    public static let maxLimit = 1000

    public init(
        owner: OwnerID?,
        state: JobState? = nil,
        label: String? = nil,
        jobClass: String? = nil,
        after: JobID? = nil,
        limit: Int = 100
    ) {
        self.owner = owner
        self.state = state
        self.label = label
        self.jobClass = jobClass
        self.after = after
        self.limit = min(max(limit, 1), Self.maxLimit)
    }
}
