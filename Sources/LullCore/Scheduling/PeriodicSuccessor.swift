import Foundation

/// A periodic job's next occurrence, created with the end of this one: its flex window opens at
/// `not_before` and closes at its deadline (`on_deadline = run`). An adaptive fetch that found
/// nothing new waits longer next time (up to `max_every_seconds`).
public struct PeriodicSuccessor: Sendable, Equatable {
    /// The occurrence to store beside the outcome of the one that ended.
    public var job: NewJob
    /// The ended occurrence's event message, which says when the next one runs.
    public var announcement: String

    /// The occurrence after `job`, which ended at `now`; nil when the job is not periodic.
    /// `unchanged`: the run found nothing new. `newRequestKey` names each occurrence's request.
    public static func after(
        _ job: Job,
        endedAt now: Date,
        unchanged: Bool,
        newRequestKey: () -> String = { UUID().uuidString.lowercased() }
    ) -> PeriodicSuccessor? {
        guard let periodic = job.spec.periodic else { return nil }
        let interval = periodic.nextInterval(current: job.spec.periodInterval ?? periodic.every, unchanged: unchanged)
        // From this occurrence's due time when it ended earlier, so that a flex window as wide
        // as the period cannot open the moment a run ends.
        let base = max(now, job.spec.deadline ?? now)
        let window = periodic.nextWindow(after: base, interval: interval, salt: UInt64(job.id.rawValue))
        var spec = job.spec
        spec.notBefore = window.opens
        spec.deadline = window.due
        spec.onDeadline = .run
        spec.periodInterval = interval
        spec.payload = spec.payload.contents.nextOccurrence(newRequestKey: newRequestKey).payload
        let formatter = Date.ISO8601FormatStyle()
        let stretched = interval > periodic.every ? " (no new data: the period is stretched to \(Int(interval)) s)" : ""
        return PeriodicSuccessor(
            job: NewJob(owner: job.owner, spec: spec, createdAt: now),
            announcement: "the next occurrence runs between \(formatter.format(window.opens)) and "
                + "\(formatter.format(window.due))\(stretched)"
        )
    }
}
