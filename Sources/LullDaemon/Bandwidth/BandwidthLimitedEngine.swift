import LullCore

/// A kind's engine with the daemon's bandwidth limits over each attempt: the attempt's context
/// gets the limiter's throttle for the job, and the limiter forgets the job when it ends.
struct BandwidthLimitedEngine: TransferEngine {
    let engine: any TransferEngine
    let limiter: BandwidthLimiter

    func run(_ job: Job, context: TransferContext) async throws -> JobResult {
        var context = context
        context.throttle = limiter.begin(job)
        defer { limiter.end(job.id) }
        return try await engine.run(job, context: context)
    }

    func discardResumeData(of job: Job) async { await engine.discardResumeData(of: job) }
}

extension BandwidthLimitedEngine: UsageReportingEngine {
    func usage(of id: JobID) -> CommandUsage? { (engine as? any UsageReportingEngine)?.usage(of: id) }
    func usages() -> [JobID: CommandUsage] { (engine as? any UsageReportingEngine)?.usages() ?? [:] }
    var reportsUsage: Bool { (engine as? any UsageReportingEngine)?.reportsUsage ?? false }
}

extension BandwidthLimitedEngine: FreezableEngine {
    func freeze(_ id: JobID) async -> Bool { await (engine as? any FreezableEngine)?.freeze(id) ?? false }
    func thaw(_ id: JobID) async -> Bool { await (engine as? any FreezableEngine)?.thaw(id) ?? false }
    var attemptsAreProcesses: Bool { (engine as? any FreezableEngine)?.attemptsAreProcesses ?? false }
}

extension Dictionary where Key == JobKind, Value == any TransferEngine {
    /// Every kind's engine under `limiter`.
    func limited(by limiter: BandwidthLimiter) -> Self {
        mapValues { BandwidthLimitedEngine(engine: $0, limiter: limiter) }
    }
}
