/// A submission that would take an owner past `limits.max_queued_per_owner`.
public struct OwnerQuotaExceeded: Error, Sendable, Equatable {
    public var owner: OwnerID
    public var unfinished: Int
    public var asked: Int
    public var limit: Int

    public init(owner: OwnerID, unfinished: Int, asked: Int, limit: Int) {
        self.owner = owner
        self.unfinished = unfinished
        self.asked = asked
        self.limit = limit
    }

    public var message: String {
        let adding = asked == 1 ? "one more job" : "\(asked) more jobs"
        return "uid \(owner.rawValue) has \(unfinished) unfinished jobs and the quota is \(limit) "
            + "(limits.max_queued_per_owner); \(adding) would exceed it: wait for jobs to finish, "
            + "cancel some (lullctl list --state queued), or ask the admin to raise the quota"
    }
}
