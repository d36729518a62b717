import LullCore

/// The running attempts whose usage is sampled, each with its last reading: the CPU share is
/// measured between readings, as a transfer's rate is between progress reports.
struct UsageSamples {
    private struct Entry {
        var usage: CommandUsage?
        /// The reading the next share is measured from (the attempt's start at first).
        var cpuSeconds: Double
        var at: ContinuousClock.Instant
    }

    private var entries: [JobID: Entry] = [:]

    var isEmpty: Bool { entries.isEmpty }
    /// The attempts sampled.
    var ids: [JobID] { Array(entries.keys) }

    /// An attempt started at `at`, having used nothing yet.
    mutating func started(_ id: JobID, at: ContinuousClock.Instant) {
        entries[id] = Entry(cpuSeconds: 0, at: at)
    }

    mutating func ended(_ id: JobID) { entries[id] = nil }

    /// Keeps a reading of a sampled attempt; the reading with its CPU share since the one before
    /// (unless its engine gave one), or nil when the attempt is not sampled (it ended meanwhile).
    mutating func record(_ reading: CommandUsage, of id: JobID, at: ContinuousClock.Instant) -> CommandUsage? {
        guard var entry = entries[id] else { return nil }
        var usage = reading
        let elapsed = (at - entry.at).timeInterval
        if usage.cpuPercent == nil {
            // Clock ticks are 10 ms: a share over a few of them says little, so the last stands.
            if elapsed >= 0.05 {
                usage.cpuPercent = max(0, usage.cpuSeconds - entry.cpuSeconds) / elapsed * 100
                (entry.cpuSeconds, entry.at) = (usage.cpuSeconds, at)
            } else {
                usage.cpuPercent = entry.usage?.cpuPercent
            }
        }
        entry.usage = usage
        entries[id] = entry
        return usage
    }

    /// The last reading of the attempt, nil before its first.
    func usage(of id: JobID) -> CommandUsage? { entries[id]?.usage }

    /// Resident memory of every sampled command at its last reading.
    var memoryBytes: Int64 { entries.values.reduce(0) { $0 + ($1.usage?.memoryBytes ?? 0) } }
}
