/// The time a command spent frozen by pauses, which its total timeout does not count. Times are
/// on `ProcessSupervisor.now()`'s monotonic clock.
struct PausedTime: Sendable {
    private(set) var since: Double?
    private(set) var total: Double = 0

    mutating func froze(at now: Double) {
        if since == nil { since = now }
    }

    mutating func thawed(at now: Double) {
        guard let since else { return }
        total += now - since
        self.since = nil
    }

    /// When `deadline` falls now: nil while frozen, moved on by the time frozen before.
    func due(_ deadline: Double) -> Double? { since == nil ? deadline + total : nil }
}
