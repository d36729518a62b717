import LullCore

/// Starts a run job's process. The seam where a systemd launcher (a transient unit started
/// over sd-bus) fits beside `SpawnLauncher`, which starts the process itself.
public protocol ProcessLauncher: Sendable {
    /// Starts `request`'s program, or throws a `JobFailure` that says why it could not.
    func launch(_ request: LaunchRequest) throws(JobFailure) -> LaunchedProcess
}

/// Everything a launcher needs: the resolved program, its words, its whole environment, its
/// directory, where its output goes and whose identity it takes.
public struct LaunchRequest: Sendable {
    /// The program's path, already found on the job's PATH.
    public var path: String
    public var argv: [String]
    /// `NAME=value` entries, the complete environment.
    public var environment: [String]
    public var directory: String
    /// The write end of the output pipe: the process's stdout and stderr.
    public var outputDescriptor: Int32
    /// nil: the daemon's own identity (the owner is the daemon's user).
    public var identity: OwnerAccount?
    /// `cgroup.procs` of the job's cgroup, open for writing, or -1: the process starts in the
    /// daemon's cgroup.
    public var cgroupDescriptor: Int32 = -1
    /// The niceness the process starts at (the job's, else its class's); nil: the daemon's.
    public var nice: Int32? = nil
    /// The controls the command runs under, the class's defaults merged under the job's own:
    /// for a unit all of them, for a process those its cgroup enforces (written there before
    /// the launch; `SpawnLauncher` itself applies none).
    public var resources = RunResources()
    /// Readable once the attempt is to stop, or -1; with `startTimeout` (seconds), it ends a
    /// start that hangs before the program runs (a working directory on a hung mount).
    public var cancelDescriptor: Int32 = -1
    public var startTimeout: Double? = nil
}

/// A started process: the leader of its own session and process group (pgid = pid).
public struct LaunchedProcess: Sendable {
    public var pid: Int32
}
