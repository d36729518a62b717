#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The directory that holds the store. The store carries every owner's secrets (push
/// `Authorization` headers, tokens), so the directory is the daemon's alone: created 0700
/// whatever the umask, and a start is refused when others could enter it.
enum StateDirectory {
    static func prepare(_ path: String) throws(StartupError) {
        var info = stat()
        if stat(path, &info) != 0 {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw StartupError(
                    "cannot create \(path): \(error.localizedDescription); pick another with --state-dir or [daemon] state_dir")
            }
            // mkdir applies the umask; this does not.
            chmod(path, 0o700)
            guard stat(path, &info) == 0 else { throw StartupError("cannot read \(path): \(String(cString: strerror(errno)))") }
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw StartupError("\(path) exists and is not a directory") }
        if let problem = exposure(mode: info.st_mode) {
            throw StartupError(
                "state directory \(path) is mode \(octal(info.st_mode)): \(problem), and the store there holds every job's headers and tokens. Run chmod 700 \(path) (lulld creates it 0700), then start lulld again")
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
