import LullCore

/// What each job's attempts moved and cost: the running attempt's meter, and the totals of its
/// earlier attempts, which a retry carries on (kept in memory, not in the store).
struct AttemptAccounts {
    private var meters: [JobID: AttemptMeter] = [:]
    private var earlier: [JobID: JobAccountant] = [:]

    /// Starts counting an attempt of `job`, carrying on from its earlier attempts.
    mutating func begin(_ job: Job, network: NetworkState, metrics: DaemonMetrics) -> AttemptMeter {
        let meter = AttemptMeter(
            job: job,
            accountant: earlier[job.id] ?? JobAccountant(),
            network: network,
            metrics: metrics
        )
        meters[job.id] = meter
        return meter
    }

    /// Bytes from now on count against the new link.
    func networkChanged(_ network: NetworkState) {
        for meter in meters.values { meter.networkChanged(network) }
    }

    /// Metered bytes the job's attempt moved since the last call, for the daily budgets.
    func takeMeteredBytes(of id: JobID) -> (bytes: Int64, owner: OwnerID, jobClass: String)? {
        guard let meter = meters[id] else { return nil }
        let bytes = meter.takeMeteredBytes()
        guard bytes > 0 else { return nil }
        return (bytes, meter.owner, meter.jobClass)
    }

    /// Ends the job's accounting: the last attempt's meter and the earlier attempts' totals.
    /// Attempts count from the store, which also knows attempts of earlier daemon runs and
    /// leaves out attempts a stop or sleep cut short.
    mutating func close(_ job: Job) -> JobAccounting {
        let accountant = meters.removeValue(forKey: job.id)?.finish() ?? earlier[job.id] ?? JobAccountant()
        earlier[job.id] = nil
        var accounting = accountant.accounting
        accounting.attempts = job.attempts
        accounting.stops = job.stops == 0 ? nil : job.stops
        return accounting
    }

    /// The attempt is over without closing the job's accounting: its totals wait for the next one.
    mutating func attemptEnded(_ id: JobID) {
        if let meter = meters.removeValue(forKey: id) { earlier[id] = meter.finish() }
    }

    /// Jobs whose earlier attempts' totals are kept for their next attempt.
    var carriedOver: Int { earlier.count }

    /// The job will not run again (cancelled or expired).
    mutating func forget(_ id: JobID) {
        earlier[id] = nil
    }
}
