import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A cgroup of the container's own in each cgroup v1 controller hierarchy, below this
/// process's cgroup there. systemd-nspawn makes the container's cgroup namespace from where
/// it starts, so a container started in these sees them as its roots: when its systemd is let
/// write to the controllers (`NspawnMachine.makeCgroupControllersWritable`), what it creates
/// stays in here and goes with `remove()`, rather than landing in the host's own tree (where
/// the next container would find it).
struct ContainerCgroups {
    static let controllers = ["memory", "pids", "cpu", "cpuacct", "blkio"]

    /// The directories made, one per controller mounted on its own.
    let directories: [String]

    init(name: String, procSelfCgroup: String = "/proc/self/cgroup") throws {
        let lines = (try? String(contentsOfFile: procSelfCgroup, encoding: .utf8)) ?? ""
        var made: [String] = []
        for controller in Self.controllers {
            let mount = "/sys/fs/cgroup/\(controller)"
            guard FileManager.default.fileExists(atPath: mount + "/cgroup.procs") else { continue }
            // "4:memory:/path": the hierarchy whose controller list is exactly this one.
            guard
                let line = lines.split(separator: "\n").first(where: {
                    $0.split(separator: ":", maxSplits: 2).dropFirst().first == Substring(controller)
                }),
                let own = line.split(separator: ":", maxSplits: 2).last
            else { continue }
            let directory = mount + (own == "/" ? "" : String(own)) + "/" + name
            guard mkdir(directory, 0o755) == 0 || errno == EEXIST else {
                Self.remove(made)
                throw NspawnError(
                    "cannot make the container's cgroup \(directory): \(String(cString: strerror(errno)))"
                )
            }
            made.append(directory)
        }
        directories = made
    }

    /// The shell words that move the shell into every one of them, then run `command`.
    func entering(_ command: [String]) -> [String] {
        let moves = directories.map { "echo $$ > '\($0)/cgroup.procs'" }
        return ["/bin/sh", "-c", (moves + ["exec \"$@\""]).joined(separator: " && "), "sh"] + command
    }

    /// Removes every cgroup the container made, deepest first; a cgroup whose last processes
    /// are still leaving is tried again for up to two seconds.
    func remove() { Self.remove(directories) }

    private static func remove(_ directories: [String]) {
        for directory in directories {
            let deadline = ContinuousClock.now + .seconds(2)
            while !removeTree(directory), ContinuousClock.now < deadline { usleep(50_000) }
        }
    }

    private static func removeTree(_ directory: String) -> Bool {
        let children = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for child in children {
            var info = stat()
            let path = directory + "/" + child
            if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { _ = removeTree(path) }
        }
        return rmdir(directory) == 0 || errno == ENOENT
    }
}
