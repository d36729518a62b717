import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The directory that holds the store. The store carries every owner's secrets (push
/// `Authorization` headers, tokens), so the directory is the daemon's alone: created 0700
/// whatever the umask, and a start is refused when others could enter it, when another uid owns
/// it, or when it is a symbolic link.
enum StateDirectory {
    static func prepare(_ path: String) throws(StartupError) {
        var info = stat()
        if lstat(path, &info) != 0 {
            let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
            do {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            } catch {
                throw StartupError(
                    "cannot create \(parent): \(error.localizedDescription); pick another with --state-dir or [daemon] state_dir"
                )
            }
            // Created 0700 at once (the umask can only take bits away), never wider for a moment.
            guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
                throw StartupError(
                    "cannot create \(path): \(String(cString: strerror(errno))); pick another with --state-dir or [daemon] state_dir"
                )
            }
            chmod(path, 0o700)
            guard lstat(path, &info) == 0 else {
                throw StartupError("cannot read \(path): \(String(cString: strerror(errno)))")
            }
        }
        if (info.st_mode & S_IFMT) == S_IFLNK {
            throw StartupError(
                "state directory \(path) is a symbolic link; give the directory it points to, so nobody can swap it",
                exitStatus: .refused
            )
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw StartupError("\(path) exists and is not a directory", exitStatus: .refused)
        }
        // Whoever owns the directory can swap the store's files under the daemon.
        guard info.st_uid == geteuid() else {
            throw StartupError(
                "state directory \(path) belongs to uid \(info.st_uid), not to lulld's uid \(geteuid()); its owner could replace the store's files. Run chown \(geteuid()) \(path), or pick another with --state-dir",
                exitStatus: .refused
            )
        }
        if let problem = exposure(mode: info.st_mode) {
            throw StartupError(
                "state directory \(path) is mode \(octal(info.st_mode)): \(problem), and the store there holds every job's headers and tokens. Run chmod 700 \(path) (lulld creates it 0700), then start lulld again",
                exitStatus: .refused
            )
        }
    }

    /// The permission bits of `path` in octal (`0700`), or nil when it cannot be read.
    static func mode(of path: String) -> String? {
        var info = stat()
        return stat(path, &info) == 0 ? octal(info.st_mode) : nil
    }

    /// Why the mode lets others in, or nil when it does not.
    static func exposure(mode: mode_t) -> String? {
        if mode & 0o007 != 0 { return "every user may enter it" }
        if mode & 0o070 != 0 { return "its group may enter it" }
        return nil
    }

    private static func octal(_ mode: mode_t) -> String {
        let text = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - text.count)) + text
    }
}
