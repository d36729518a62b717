import CLullSys
import LullCore
import LullKernelFiles

#if canImport(Glibc)
import Glibc
#endif

/// The cgroup v2 subtree handed to lulld, where the process host puts each run job's command in
/// a cgroup of its own (`JobCgroup`, `jobs/job-ID`). Only lulld's own cgroup is used, and only
/// when it is lulld's to manage: under systemd, a cgroup systemd marked delegated
/// (`Delegate=yes`: the `trusted.delegate` or `user.delegate` attribute); without systemd, one
/// lulld may write to (a container or supervisor that made it for lulld). Never the root of the
/// hierarchy, which belongs to the machine. Without such a subtree commands run in lulld's
/// process groups and are measured with rusage and /proc.
public struct DelegatedCgroups: Sendable, Equatable {
    /// Where the cgroup v2 file system is mounted (`/sys/fs/cgroup`, or `/sys/fs/cgroup/unified`
    /// on a hybrid machine).
    public let mount: String
    /// lulld's own cgroup, as `/proc/self/cgroup` names it.
    public let base: String
    /// The controllers the jobs' cgroups have (those delegated to lulld, of cpu, memory, io and
    /// pids); CPU time, freezing and killing need none.
    public let controllers: [String]

    public init(mount: String, base: String, controllers: [String]) {
        self.mount = mount
        self.base = base
        self.controllers = controllers
    }

    /// The cgroup that holds the jobs' cgroups.
    public var jobs: String { base + "/jobs" }

    /// Whether the jobs' cgroups enforce the resource control `field` (its controller is on).
    public func enforces(_ field: String) -> Bool { controllers.contains(RunResources.controller(of: field)) }

    /// The controls of `resources` these cgroups enforce; the others are left out.
    public func enforced(_ resources: RunResources) -> RunResources {
        var kept = RunResources()
        for (field, value) in resources.values where enforces(field) { _ = kept.set(field, to: value) }
        return kept
    }

    public func group(of id: JobID) -> JobCgroup {
        let path = jobs + "/job-\(id.rawValue)"
        return JobCgroup(directory: mount + path, path: path)
    }

    /// Whether commands get cgroups of their own (`[run] cgroup`).
    public enum Setting: String, Sendable, Equatable, CaseIterable {
        /// Where lulld's cgroup is delegated to it.
        case auto
        case off
    }

    /// What start-up found: the subtree in use, or why there is none.
    public enum Found: Sendable, Equatable {
        case using(DelegatedCgroups)
        case unavailable(String)
    }

    /// Finds lulld's delegated subtree and sets it up: lulld moves into a leaf `lulld` of its
    /// own (a cgroup that hands controllers to children may hold no process itself), the
    /// delegated controllers are enabled for `jobs`, and empty job cgroups left by an earlier
    /// run are removed.
    public static func establish(_ setting: Setting, proc: String = "/proc") -> Found {
        guard setting == .auto else { return .unavailable("[run] cgroup = \"off\"") }
        guard var own = ownCgroup(proc: proc) else {
            return .unavailable("lulld is not in a cgroup v2 hierarchy")
        }
        // Started again in the leaf an earlier run moved it to (a supervisor must, once that run
        // enabled controllers for the cgroup's children): the cgroup is the leaf's parent.
        if own.hasSuffix("/lulld"), own.count > 6 { own = String(own.dropLast(6)) }
        guard let mount = mountPoint(proc: proc) else {
            return .unavailable("no cgroup v2 file system is mounted")
        }
        guard own != "/" else {
            return .unavailable(
                "lulld runs in the root of the cgroup hierarchy (or of its cgroup namespace), which it does not take over; start it in a cgroup delegated to it"
            )
        }
        let directory = mount + own
        if access("/run/systemd/system", F_OK) == 0 {
            guard isMarkedDelegated(directory) else {
                return .unavailable("systemd did not delegate lulld's cgroup \(own) to it (Delegate=yes)")
            }
        }
        guard access(directory, W_OK) == 0, access(directory + "/cgroup.procs", W_OK) == 0 else {
            return .unavailable("lulld may not write to its cgroup \(own)")
        }
        // A cgroup shared with other processes (another lulld among them) is not lulld's own:
        // its jobs' cgroups would be another daemon's too.
        let others = (pids(in: directory) + pids(in: directory + "/lulld")).filter { $0 != getpid() }
        guard others.isEmpty else {
            let listed = others.prefix(5).map(String.init).joined(separator: " ")
            return .unavailable(
                "lulld's cgroup \(own) also holds other processes (\(listed)); give lulld a cgroup of its own"
            )
        }
        let wanted = RunResources.fields.map(RunResources.controller(of:))
        let offered = words(directory + "/cgroup.controllers").filter(wanted.contains)
        if !offered.isEmpty {
            mkdir(directory + "/lulld", 0o755)
            if KernelFile.write("0", to: directory + "/lulld/cgroup.procs") {
                for controller in offered {
                    KernelFile.write("+\(controller)", to: directory + "/cgroup.subtree_control")
                }
            }
        }
        guard mkdir(directory + "/jobs", 0o755) == 0 || errno == EEXIST else {
            return .unavailable("cannot make \(own)/jobs: \(String(cString: strerror(errno)))")
        }
        for controller in words(directory + "/jobs/cgroup.controllers").filter(wanted.contains) {
            KernelFile.write("+\(controller)", to: directory + "/jobs/cgroup.subtree_control")
        }
        removeEmptyGroups(in: directory + "/jobs")
        return .using(
            DelegatedCgroups(
                mount: mount,
                base: own,
                controllers: words(directory + "/jobs/cgroup.subtree_control").filter(wanted.contains)
            )
        )
    }

    /// The `0::` line of `/proc/self/cgroup`.
    public static func ownCgroup(proc: String) -> String? {
        let lines = (KernelFile.read(proc + "/self/cgroup") ?? "").split(separator: "\n")
        return lines.first { $0.hasPrefix("0::") }.map { String($0.dropFirst(3)) }
    }

    /// The mount point of the cgroup2 file system in `/proc/self/mountinfo`, when its root is the
    /// hierarchy's (a bind of a subtree would need the paths translated).
    public static func mountPoint(proc: String) -> String? {
        for line in (KernelFile.read(proc + "/self/mountinfo") ?? "").split(separator: "\n") {
            // "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER".
            let halves = line.split(separator: " - ", maxSplits: 1)
            guard halves.count == 2, halves[1].hasPrefix("cgroup2 ") else { continue }
            let fields = halves[0].split(separator: " ")
            guard fields.count > 4, fields[3] == "/" else { continue }
            return String(fields[4])
        }
        return nil
    }

    /// systemd marks a cgroup it delegated with `trusted.delegate` (system manager) or
    /// `user.delegate` (user manager) set to "1".
    private static func isMarkedDelegated(_ directory: String) -> Bool {
        ["trusted.delegate", "user.delegate"].contains { name in
            var value = [UInt8](repeating: 0, count: 8)
            let length = getxattr(directory, name, &value, value.count)
            return length == 1 && value[0] == UInt8(ascii: "1")
        }
    }

    private static func pids(in directory: String) -> [Int32] {
        (KernelFile.read(directory + "/cgroup.procs") ?? "").split(separator: "\n").compactMap { Int32($0) }
    }

    private static func words(_ path: String) -> [String] {
        (KernelFile.read(path) ?? "").split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
    }

    /// Job cgroups of jobs that ended while no lulld ran; one that still holds a process stays
    /// (rmdir refuses it) until its job's next attempt ends it.
    private static func removeEmptyGroups(in directory: String) {
        for name in KernelFile.names(in: directory) where name.hasPrefix("job-") { rmdir(directory + "/" + name) }
    }
}
