import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A minimal Debian booted with `systemd-nspawn -b` (systemd as PID 1), for tests that need a
/// real service manager. The root is made once with debootstrap and cached; every boot runs on
/// an overlay of it, so the cache stays pristine and a boot costs seconds. Commands run inside
/// through `nsenter -t LEADER -a`.
public final class NspawnMachine: @unchecked Sendable {
    /// Bump when the package list changes, so a stale cache is not reused.
    public static let cacheRoot = "/var/cache/lull-nspawn-root/bookworm-v3"
    public static let packages = [
        "systemd", "systemd-sysv", "dbus", "dbus-user-session", "libpam-systemd", "polkitd", "libsqlite3-0",
        "python3", "curl", "libstdc++6", "procps",
    ]
    public static let mirror = "http://deb.debian.org/debian"

    public let directory: String
    /// The container's root as the host sees it (the overlay).
    public let root: String
    public private(set) var leader: pid_t = 0
    private var nspawn: Process?
    private var mounted = false
    /// The container's own cgroups, when it was booted with them.
    private var cgroups: ContainerCgroups?

    /// Why this machine cannot boot a container, or nil when it can.
    public static var unavailableReason: String? {
        if geteuid() != 0 { return "not root (systemd-nspawn and debootstrap need root)" }
        for tool in ["/usr/bin/systemd-nspawn", "/usr/sbin/debootstrap", "/usr/bin/nsenter"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing (apt-get install systemd-container debootstrap util-linux)"
        }
        return nil
    }

    /// Makes the cached root if needed (a few minutes, once), then boots an overlay of it with
    /// `bindReadOnly` host paths visible at the same place, and waits until systemd is up.
    /// `ownCgroups` starts it in cgroups of its own (see `ContainerCgroups`), which
    /// `makeCgroupControllersWritable` needs.
    public init(bindReadOnly: [String] = [], ownCgroups: Bool = false, timeout: Duration = .seconds(90)) throws {
        try Self.prepareCache()
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("lull-nspawn-\(UUID().uuidString.prefix(8))")
            .path
        root = directory + "/root"
        for sub in ["upper", "work", "root"] {
            try FileManager.default.createDirectory(atPath: directory + "/" + sub, withIntermediateDirectories: true)
        }
        let mount = try CommandRunner.run(
            "/usr/bin/mount",
            [
                "-t", "overlay", "overlay", "-o",
                "lowerdir=\(Self.cacheRoot),upperdir=\(directory)/upper,workdir=\(directory)/work", root,
            ]
        )
        if mount.status == 0 {
            mounted = true
        } else {
            // No overlay here (e.g. the temporary directory is itself on overlayfs): a copy,
            // slower but just as disposable.
            FileHandle.standardError.write(
                Data(
                    "NspawnMachine: overlay mount failed (\(mount.stderr.trimmingCharacters(in: .whitespacesAndNewlines))); copying the root instead\n"
                        .utf8
                )
            )
            let copy = try CommandRunner.run("/bin/cp", ["-a", "--reflink=auto", Self.cacheRoot + "/.", root])
            guard copy.status == 0 else { throw NspawnError("cannot copy the cached root: \(copy.stderr)") }
        }
        do {
            if ownCgroups {
                cgroups = try ContainerCgroups(name: "lull-nspawn-\(getpid())-\(UUID().uuidString.prefix(4))")
            }
            try boot(bindReadOnly: bindReadOnly, timeout: timeout)
        } catch {
            shutDown()
            throw error
        }
    }

    private func boot(bindReadOnly: [String], timeout: Duration) throws {
        let process = Process()
        let machine = "lull-\(getpid())-\(UUID().uuidString.prefix(4))"
        var command =
            [
                "/usr/bin/systemd-nspawn", "--boot", "--register=no", "--keep-unit", "--console=passive", "--quiet",
                "--directory=\(root)", "--machine=\(machine)",
            ] + bindReadOnly.map { "--bind-ro=\($0)" }
        // The shell moves itself into the container's cgroups, then becomes nspawn (same pid).
        if let cgroups { command = cgroups.entering(command) }
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        let log = FileHandle(forWritingAtPath: "/dev/null")
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        nspawn = process
        // systemd-nspawn forks the container's PID 1 (systemd); it is its only child.
        leader = try waitFor("the container's init", timeout: .seconds(20)) { () -> pid_t? in
            guard process.isRunning else {
                throw NspawnError("systemd-nspawn exited with \(process.terminationStatus)")
            }
            let children =
                (try? String(
                    contentsOfFile: "/proc/\(process.processIdentifier)/task/\(process.processIdentifier)/children",
                    encoding: .utf8
                )) ?? ""
            guard let pid = children.split(separator: " ").first.flatMap({ pid_t($0) }) else { return nil }
            let comm = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
            return comm.hasPrefix("systemd") ? pid : nil
        }
        // "running" or "degraded" (a unit the container cannot run failed): either way it booted.
        do {
            _ = try waitFor("systemd in the container to finish booting", timeout: timeout) { () -> Bool? in
                let state = try? self.run(["systemctl", "is-system-running"]).stdout.trimmingCharacters(
                    in: .whitespacesAndNewlines
                )
                return state == "running" || state == "degraded" ? true : nil
            }
        } catch {
            throw NspawnBootHung(reason: "\(error)", diagnosis: bootDiagnosis())
        }
    }

    /// What a boot that never finished was waiting for: the state, the queued jobs, the journal's end.
    private func bootDiagnosis() -> String {
        let commands = [
            ["systemctl", "is-system-running"], ["systemctl", "list-jobs", "--no-pager"],
            ["journalctl", "-b", "--no-pager", "-n", "40"],
        ]
        return commands.map { command in
            let result = try? run(command)
            return "$ \(command.joined(separator: " "))\n\(result?.stdout ?? "")\(result?.stderr ?? "(could not run)")"
        }.joined(separator: "\n")
    }

    /// Runs a command inside the container (all its namespaces), as root.
    @discardableResult
    public func run(_ arguments: [String], input: Data? = nil) throws -> CommandResult {
        try CommandRunner.run(
            "/usr/bin/nsenter",
            ["-t", "\(leader)", "-a", "--"] + arguments,
            environment: [
                "PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "SYSTEMD_PAGER": "", "SYSTEMD_COLORS": "0",
            ],
            input: input
        )
    }

    /// Runs a command and fails with its output unless it exits 0.
    @discardableResult
    public func check(_ arguments: [String], input: Data? = nil) throws -> String {
        let result = try run(arguments, input: input)
        guard result.status == 0 else {
            throw NspawnError(
                "`\(arguments.joined(separator: " "))` exited \(result.status): \(result.stdout)\(result.stderr)"
            )
        }
        return result.stdout
    }

    /// Writes a file inside the container (through the overlay), creating its directory.
    public func write(_ text: String, to path: String, mode: Int = 0o644) throws {
        let url = URL(fileURLWithPath: root + path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
        chmod(url.path, mode_t(mode))
    }

    /// Lets the container's systemd set resource limits. On a host with cgroup v1 controllers
    /// (this project's CI machine) nspawn mounts them read-only in the container, so systemd
    /// there accounts but cannot limit; remounted writable and re-executed, it applies
    /// `MemoryMax=` and `TasksMax=` as a host's systemd would.
    public func makeCgroupControllersWritable() throws {
        guard cgroups != nil else {
            throw NspawnError("boot the machine with ownCgroups: its systemd would write to the host's cgroups")
        }
        for controller in ["memory", "pids", "cpu", "cpuacct", "cpu,cpuacct", "blkio"] {
            let path = "/sys/fs/cgroup/\(controller)"
            guard (try? run(["mountpoint", "-q", path]).status) == 0 else { continue }
            try check(["mount", "-o", "remount,bind,rw", path])
        }
        try check(["systemctl", "daemon-reexec"])
        _ = try waitFor("systemd to come back after daemon-reexec", timeout: .seconds(20)) { () -> Bool? in
            let state = try? run(["systemctl", "is-system-running"]).stdout.trimmingCharacters(
                in: .whitespacesAndNewlines
            )
            return state == "running" || state == "degraded" ? true : nil
        }
    }

    /// A unit property (`systemctl show -p NAME --value`).
    public func property(_ unit: String, _ name: String, user: String? = nil) throws -> String {
        try run(systemctl(user: user) + ["show", unit, "-p", name, "--value"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `systemctl`, or `systemctl --user` for `user`'s manager (run as that user, with its runtime dir).
    public func systemctl(user: String? = nil) -> [String] {
        guard let user else { return ["systemctl"] }
        return [
            "runuser", "-u", user, "--", "env", "XDG_RUNTIME_DIR=/run/user/\(uid(of: user))", "systemctl", "--user",
        ]
    }

    /// A user's uid as the container's passwd says.
    public func uid(of user: String) -> String {
        ((try? run(["id", "-u", user]).stdout) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Polls `condition` until it returns a value or `timeout` passes; the last error or a
    /// timeout error names `what`.
    @discardableResult
    public func waitFor<T>(
        _ what: String,
        timeout: Duration,
        every interval: Duration = .milliseconds(100),
        _ condition: () throws -> T?
    ) throws -> T {
        let deadline = ContinuousClock.now + timeout
        var lastError: (any Error)?
        while ContinuousClock.now < deadline {
            do {
                if let value = try condition() { return value }
            } catch let error as NspawnError {
                throw error
            } catch {
                lastError = error
            }
            Thread.sleep(
                forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds)
            )
        }
        throw NspawnError("timed out after \(timeout) waiting for \(what)" + (lastError.map { ": \($0)" } ?? ""))
    }

    /// Powers the container off (SIGKILL if it does not go within 20 s) and removes the overlay.
    public func shutDown() {
        if let nspawn, nspawn.isRunning {
            // nspawn exits when the container's systemd has powered off.
            if leader > 0 { _ = try? run(["systemctl", "poweroff", "--no-block"]) }
            let deadline = ContinuousClock.now + .seconds(20)
            while nspawn.isRunning && ContinuousClock.now < deadline { usleep(50_000) }
            if nspawn.isRunning {
                kill(nspawn.processIdentifier, SIGKILL)
                nspawn.waitUntilExit()
            }
        }
        cgroups?.remove()
        cgroups = nil
        if mounted {
            _ = try? CommandRunner.run("/usr/bin/umount", ["-l", root])
            mounted = false
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// debootstraps the root once; later runs find it complete (a stamp written last) and reuse it.
    /// The power-cut test's guest image is made from it too.
    public static func prepareCache() throws {
        let stamp = cacheRoot + "/.lull-complete"
        if FileManager.default.fileExists(atPath: stamp) { return }
        let partial = cacheRoot + ".partial"
        try? FileManager.default.removeItem(atPath: partial)
        try FileManager.default.createDirectory(
            atPath: (cacheRoot as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true
        )
        FileHandle.standardError.write(
            Data("NspawnMachine: debootstrapping a Debian bookworm root into \(cacheRoot) (once; a few minutes)\n".utf8)
        )
        let result = try CommandRunner.run(
            "/usr/sbin/debootstrap",
            [
                "--variant=minbase", "--include=" + packages.joined(separator: ","), "bookworm", partial, mirror,
            ]
        )
        guard result.status == 0 else {
            throw NspawnError(
                "debootstrap failed (\(result.status)): \(result.stdout.suffix(2000))\(result.stderr.suffix(2000))"
            )
        }
        // No getty on the container's console: nothing reads it, and logins are not needed.
        try? FileManager.default.removeItem(
            atPath: partial + "/etc/systemd/system/getty.target.wants/getty@tty1.service"
        )
        _ = FileManager.default.createFile(atPath: partial + "/.lull-complete", contents: Data())
        try? FileManager.default.removeItem(atPath: cacheRoot)
        try FileManager.default.moveItem(atPath: partial, toPath: cacheRoot)
    }
}

/// The container started but its systemd never reached `running`: an environment fault, which
/// callers may answer by booting a fresh machine once.
public struct NspawnBootHung: Error, CustomStringConvertible {
    public var reason: String
    public var diagnosis: String
    public var description: String { "\(reason)\n\(diagnosis)" }
}

public struct NspawnError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
