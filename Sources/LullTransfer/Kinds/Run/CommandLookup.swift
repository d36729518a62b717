#if canImport(Glibc)
import Glibc
#endif

/// Finds `argv[0]` as `execvp` would, but once, before the process starts, so that a missing
/// program is a clear failure (`command_not_found`) rather than an exit status of 127.
enum CommandLookup {
    /// The minimal environment's PATH, also the job's unless it gives its own.
    static let defaultPath = "/usr/local/bin:/usr/bin:/bin"

    /// `program` when it holds a `/` (joined to the working directory when relative: systemd
    /// takes only an absolute path), else the first executable regular file of that name in
    /// `path`'s directories; nil when none is.
    static func resolve(_ program: String, path: String, directory: String) -> String? {
        if program.contains("/") {
            let full = program.hasPrefix("/") ? program : directory + "/" + program
            return isExecutableFile(full) ? full : nil
        }
        for entry in path.split(separator: ":", omittingEmptySubsequences: false) {
            // An empty entry means the working directory, as for execvp.
            let base = entry.isEmpty ? directory : String(entry)
            let candidate = base.hasSuffix("/") ? base + program : base + "/" + program
            if isExecutableFile(candidate.hasPrefix("/") ? candidate : directory + "/" + candidate) {
                return candidate.hasPrefix("/") ? candidate : directory + "/" + candidate
            }
        }
        return nil
    }

    /// `AT_EACCESS`: with the calling thread's filesystem identity (the owner's, in `prepare`);
    /// plain `access` would ask with the real uid, lulld's.
    private static func isExecutableFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
            && faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) == 0
    }
}
