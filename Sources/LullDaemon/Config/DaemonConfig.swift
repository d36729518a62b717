import LullCore
import LullTransfer

/// Everything an admin can set, with the defaults a daemon runs on when no file says otherwise.
/// docs/configuration.md documents every key; keep the two in step.
public struct DaemonConfig: Sendable, Equatable {
    /// `[daemon] state_dir`: where the SQLite store lives. nil: the instance default.
    public var stateDirectory: String?
    /// `[daemon] socket`: the control socket's path. nil: the instance default.
    public var socketPath: String?
    /// `[daemon] socket_mode`: permission bits of the control socket.
    public var socketMode: UInt32 = 0o600
    /// `[daemon] socket_name`: under socket activation, the `FileDescriptorName=` of the socket to serve.
    public var socketName = "control"
    /// `[limits]` and `[classes.NAME]`: the scheduling policy (classes, limits), with the file
    /// and line each setting came from.
    public var policy = SchedulingPolicy.defaults
    /// `[limits] max_request_bytes`, `max_push_body_bytes`, `max_batch_jobs`.
    public var limits = SubmissionLimits()
    /// `[limits] max_connections_per_uid`: control connections one non-root uid may hold open.
    public var maxConnectionsPerUid = 128
    /// `[limits] max_connections`: control connections all non-root uids together may hold open
    /// (at most half the open-file limit, whatever this says).
    public var maxConnections = 1024
    /// `[limits] keep_finished_days`, in seconds: how long a finished job, its events and its
    /// output are kept after it ended.
    public var keepFinished: Double = 30 * 86_400
    /// `[transfers]`: timeouts, the download size cap, how often downloads checkpoint.
    public var transfers = TransferSettings()
    /// `[transfers] allowed_directories`: when non-empty, fetch destinations must lie under one of these.
    public var allowedDirectories: [String] = []

    /// `[sensors]`: the D-Bus to ask, the sysfs root, interfaces declared metered or cellular.
    public var sensors = SensorSettings()

    /// `[hooks]`: the service manager completion hooks use and the units they may start.
    public var hooks = HookSettings()

    /// `[run]`: how much of a run job's output its log keeps, where commands run, and the
    /// classes' run defaults (`[classes.NAME] nice`, `memory_max`...). Its total timeout is the
    /// transfers' (`[transfers] total_timeout`): see `runSettings`.
    public var run = RunSettings()

    /// Where the keys that can be without effect were set (`daemon.socket_mode`,
    /// `hooks.allowed_units`...), the last file winning: `IneffectiveSettings` cites them.
    public var origins: [String: ConfigOrigin] = [:]

    public init() {}

    /// `[run]` as the runner takes it, with `[transfers] total_timeout`.
    public var runSettings: RunSettings {
        var settings = run
        settings.totalTimeout = transfers.totalTimeout
        return settings
    }

    /// `[limits] max_concurrent`.
    public var maxConcurrent: Int { policy.maxConcurrent.value }
}
