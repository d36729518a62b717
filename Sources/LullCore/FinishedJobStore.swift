import Foundation

/// The store as the retention sweep sees it: finished jobs old enough to forget, and the
/// removal of them with their events (`FinishedJobPruner` in the daemon).
public protocol FinishedJobStore: Sendable {
    /// Up to `limit` jobs that ended before `cutoff`, the longest ended first, leaving out those whose
    /// completion hook has yet to run and the newest job of all (its id is the high-water mark
    /// the next id is counted from, so it must stay until a newer one exists).
    func finishedJobs(endedBefore cutoff: Date, limit: Int) async throws -> [FinishedJob]
    /// Deletes these jobs with their events in one transaction, each only if it is still one
    /// that `finishedJobs` would return; returns how many went.
    func removeFinished(_ ids: [JobID], endedBefore cutoff: Date) async throws -> Int
    /// Forgets the validators of fetches last stored before `cutoff`; returns how many went.
    func forgetFetchValidators(storedBefore cutoff: Date) async throws -> Int
}

/// A finished job as the retention sweep needs it: what to delete, and whether it left a log.
public struct FinishedJob: Sendable, Hashable {
    public var id: JobID
    public var kind: JobKind

    public init(id: JobID, kind: JobKind) {
        self.id = id
        self.kind = kind
    }
}
