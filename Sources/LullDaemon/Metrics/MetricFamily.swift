import Prometheus

/// One family of `GET /metrics`: its name and its `# HELP` text. Every family is declared here,
/// so a name has exactly one help text (the registry stops the process on a second, different
/// one) and this list can be read beside the table in docs/api.md.
struct MetricFamily: Sendable {
    let name: String
    let help: String

    private init(_ name: String, _ help: String) {
        self.name = name
        self.help = help
    }

    /// The full name goes in `metricName`: with an empty unit the descriptor's name is that name
    /// unchanged, and the source stays greppable by it.
    var descriptor: MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    // Counters that move as things happen.
    static let jobsStarted = MetricFamily(
        "lull_jobs_started_total",
        "Job attempts started, a retry or a resume included."
    )
    static let jobsFinished = MetricFamily(
        "lull_jobs_finished_total",
        "Job attempts that ended, and jobs cancelled or expired, by outcome and reason (failure code, not_modified, deadline or none)."
    )
    static let jobsFailed = MetricFamily(
        "lull_jobs_failed_total",
        "Jobs that failed for good (no retry left or not retryable), by failure code."
    )
    static let jobStops = MetricFamily(
        "lull_job_stops_total",
        "Running attempts stopped because their conditions lapsed (not failures), by reason (a waiting reason's code)."
    )
    static let transferBytes = MetricFamily(
        "lull_transfer_bytes_total",
        "Bytes jobs moved, by direction (down, up) and link type."
    )

    static let runCPUSeconds = MetricFamily(
        "lull_run_cpu_seconds_total",
        "CPU seconds (user and system) run jobs' commands used, counted as each attempt ends, by class."
    )
    static let runIOReadBytes = MetricFamily(
        "lull_run_io_read_bytes_total",
        "Bytes run jobs' commands read from storage, counted as each attempt ends, by class."
    )
    static let runIOWriteBytes = MetricFamily(
        "lull_run_io_write_bytes_total",
        "Bytes run jobs' commands wrote to storage, counted as each attempt ends, by class."
    )

    // Counters the daemon keeps elsewhere, read when /metrics is.
    static let schedulerDecisions = MetricFamily(
        "lull_scheduler_decisions_total",
        "Scheduling decisions since the daemon started."
    )
    static let schedulerCoalescedStarts = MetricFamily(
        "lull_scheduler_coalesced_starts_total",
        "Deferrable jobs started because a metered or cellular link was already awake."
    )
    static let schedulerLinkWakeups = MetricFamily(
        "lull_scheduler_link_wakeups_total",
        "Job starts that woke a sleeping metered or cellular link."
    )
    static let samplerSamples = MetricFamily(
        "lull_sampler_samples_total",
        "Timed samples the sampler's loop has taken since the daemon started."
    )
    static let processCPU = MetricFamily(
        "process_cpu_seconds_total",
        "Total user and system CPU time spent in seconds."
    )

    // Gauges set when /metrics is read.
    static let jobs = MetricFamily("lull_jobs", "Jobs in the store over every owner, by class and state.")
    static let runningJobs = MetricFamily("lull_running_jobs", "Jobs the daemon is running now.")
    static let runMemory = MetricFamily(
        "lull_run_memory_bytes",
        "Resident memory of the running run jobs' commands at their last sample."
    )
    static let onBattery = MetricFamily("lull_on_battery", "1 while the machine runs on battery, else 0.")
    static let batteryCharge = MetricFamily(
        "lull_battery_charge_ratio",
        "Battery charge from 0 to 1; absent until a charge is known."
    )
    static let lowPower = MetricFamily(
        "lull_low_power",
        "1 in a power-saver profile or at a low-battery warning, else 0."
    )
    static let networkConnectivity = MetricFamily(
        "lull_network_connectivity",
        "1 for the current connectivity state, 0 for the others."
    )
    static let networkMetered = MetricFamily("lull_network_metered", "1 on a metered link, else 0.")
    static let networkCellular = MetricFamily("lull_network_cellular", "1 on a cellular link, else 0.")
    static let pressure = MetricFamily(
        "lull_pressure_some_avg10_ratio",
        "Share of the last 10 seconds in which some task stalled on the resource (PSI some avg10), from 0 to 1."
    )
    static let samplerRunning = MetricFamily(
        "lull_sampler_running",
        "1 while the sampler's loop runs (a watcher, or jobs held by pressure), else 0."
    )
    static let buildInfo = MetricFamily("lull_build_info", "Always 1; the version label names the running lulld.")
    static let processResidentMemory = MetricFamily(
        "process_resident_memory_bytes",
        "Resident memory size in bytes."
    )
    static let processVirtualMemory = MetricFamily(
        "process_virtual_memory_bytes",
        "Virtual memory size in bytes."
    )
    static let processStartTime = MetricFamily(
        "process_start_time_seconds",
        "Start time of the process since unix epoch in seconds."
    )
    static let processOpenFDs = MetricFamily("process_open_fds", "Number of open file descriptors.")
    static let processMaxFDs = MetricFamily("process_max_fds", "Maximum number of open file descriptors.")
}
