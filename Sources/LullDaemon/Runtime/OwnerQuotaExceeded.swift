import LullCore

/// A submission that would take an owner past `limits.max_queued_per_owner`.
struct OwnerQuotaExceeded: Error, Sendable {
    var owner: OwnerID
    var unfinished: Int
    var asked: Int
    var limit: Int

    var message: String {
        let adding = asked == 1 ? "one more job" : "\(asked) more jobs"
        return "uid \(owner.rawValue) has \(unfinished) unfinished jobs and the quota is \(limit) "
            + "(limits.max_queued_per_owner); \(adding) would exceed it: wait for jobs to finish, "
            + "cancel some (lullctl list --state queued), or ask the admin to raise the quota"
    }
}
