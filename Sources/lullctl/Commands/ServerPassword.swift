import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The password for `--user NAME`: from `LULL_PASSWORD`, else typed at the terminal without
/// echo. `--user NAME:PASSWORD` also works, as with curl, but leaves the password in the
/// command line, which other local users can read while lullctl runs.
enum ServerPassword {
    static func read(
        for user: String,
        environment: [String: String] = CallerEnvironment.all
    ) throws -> String {
        if let password = environment["LULL_PASSWORD"] { return password }
        guard isatty(STDIN_FILENO) != 0, let typed = getpass("password for \(user): ") else {
            throw ValidationError(
                "--user \(user) needs a password: set LULL_PASSWORD, type it at a terminal, or give --user \(user):PASSWORD (visible to other local users while lullctl runs)"
            )
        }
        return String(cString: typed)
    }
}
