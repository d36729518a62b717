import CLullSys
import LullCore

#if canImport(Glibc)
import Glibc
#endif

/// Starts the process itself, without systemd: fork and execve through the C shim, in a new
/// session and process group, taking on the owner's uid, gid and groups, niceness, cgroup and
/// open-file limit in between. Not posix_spawn: it can do none of those, and a start it hangs
/// in (chdir on a hung mount) could be neither cancelled nor timed out.
public struct SpawnLauncher: ProcessLauncher {
    /// The soft `RLIMIT_NOFILE` a command starts with; nil: lulld's own.
    let descriptorSoftLimit: UInt64?

    public init(descriptorSoftLimit: UInt64? = nil) {
        self.descriptorSoftLimit = descriptorSoftLimit
    }

    public func launch(_ request: LaunchRequest) throws(JobFailure) -> LaunchedProcess {
        let argv = CStringArray(request.argv)
        let environment = CStringArray(request.environment)
        defer {
            argv.free()
            environment.free()
        }
        let groups = request.identity?.groups ?? []
        var step: UnsafePointer<CChar>?
        let pid = request.path.withCString { path in
            request.directory.withCString { directory in
                groups.withUnsafeBufferPointer { groupList in
                    var spawn = lull_spawn_request(
                        path: path,
                        argv: argv.pointers,
                        envp: environment.pointers,
                        directory: directory,
                        output_fd: request.outputDescriptor,
                        switch_identity: request.identity == nil ? 0 : 1,
                        uid: request.identity?.uid ?? 0,
                        gid: request.identity?.gid ?? 0,
                        groups: groupList.baseAddress,
                        group_count: Int32(groupList.count),
                        set_nice: request.nice == nil ? 0 : 1,
                        nice: request.nice ?? 0,
                        cgroup_procs_fd: request.cgroupDescriptor,
                        restore_nofile: descriptorSoftLimit == nil ? 0 : 1,
                        nofile_soft: descriptorSoftLimit ?? 0,
                        cancel_fd: request.cancelDescriptor,
                        timeout_ms: request.startTimeout.map { Int32(clamping: Int(max(0, $0 * 1000).rounded(.up))) }
                            ?? -1
                    )
                    return lull_spawn(&spawn, &step)
                }
            }
        }
        guard pid > 0 else {
            throw Self.failure(step: step.map { String(cString: $0) } ?? "", errno: errno, request)
        }
        return LaunchedProcess(pid: pid)
    }

    /// Why the process did not start, in the words of the step that failed. None is retryable:
    /// a program, a directory or an identity does not come back by itself.
    static func failure(step: String, errno code: Int32, _ request: LaunchRequest) -> JobFailure {
        let reason = String(cString: strerror(code))
        switch (step, code) {
        case ("timeout", _):
            return JobFailure(
                code: "total_timeout",
                message:
                    "the command had not started when its total timeout ran out (entering \(request.directory) or loading \(request.path) hung: a hung network or FUSE mount?)",
                retryable: true
            )
        case ("exec", ENOENT):
            return JobFailure(
                code: "command_not_found",
                message: "cannot run \(request.path): \(reason)",
                retryable: false
            )
        case ("chdir", _):
            return JobFailure(
                code: "working_directory_unavailable",
                message: "cannot enter the working directory \(request.directory): \(reason)",
                retryable: false
            )
        case ("cgroup", _):
            return JobFailure(
                code: "exec_failed",
                message: "cannot start the command in its cgroup: \(reason)",
                retryable: true
            )
        case ("nice", _):
            return JobFailure(
                code: "exec_failed",
                message:
                    "cannot start the command at niceness \(request.nice ?? 0) (\(reason)); below lulld's own niceness needs root or CAP_SYS_NICE",
                retryable: false
            )
        case ("setgroups", _), ("setgid", _), ("setuid", _), ("capabilities", _):
            return JobFailure(
                code: "exec_failed",
                message:
                    "cannot run the command as uid \(request.identity?.uid ?? 0) (\(step): \(reason)); lulld needs CAP_SETUID and CAP_SETGID for that",
                retryable: false
            )
        default:
            return JobFailure(
                code: "exec_failed",
                message: "cannot run \(request.path) (\(step.isEmpty ? "spawn" : step)): \(reason)",
                retryable: false
            )
        }
    }
}

/// A NULL-terminated array of C strings, for argv and envp; freed by its owner.
private struct CStringArray {
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

    init(_ strings: [String]) {
        pointers = .allocate(capacity: strings.count + 1)
        for (index, string) in strings.enumerated() { pointers[index] = strdup(string) }
        pointers[strings.count] = nil
    }

    func free() {
        var index = 0
        while let pointer = pointers[index] {
            Glibc.free(pointer)
            index += 1
        }
        pointers.deallocate()
    }
}
