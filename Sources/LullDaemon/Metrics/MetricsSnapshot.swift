import LullCore

/// What `/metrics` reads at scrape time.
struct MetricsSnapshot: Sendable {
    /// Every (class, state) pair the daemon knows, zeros included, so series do not vanish.
    var jobs: [JobCountKey: Int]
    var running: Int
    /// Resident memory of the running commands at their last sample.
    var runMemoryBytes: Int64 = 0
    var world: WorldSnapshot
    var scheduling: SchedulingStatistics
    /// The sampler's loop exists (someone watches or jobs wait on pressure) and its timed samples so far.
    var samplerRunning: Bool
    var samplerTicks: Int
    var process: ProcessStatistics
}
