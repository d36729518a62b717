import Foundation
import LullTestSupport

/// A real terminal for testing the live views: a detached tmux session on its own tmux server
/// (`-L`), driven with send-keys and read with capture-pane.
final class TmuxSession {
    static let tmux = "/usr/bin/tmux"
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: tmux) }

    private let server = "lull-test-\(UUID().uuidString.prefix(8))"
    private let name = "lull"

    /// Starts `command` in a shell in a `columns`×`rows` window. The shell prints `exit=N` when the
    /// command ends and then waits, so the last screen and the exit status can be read.
    init(_ command: String, environment: [String: String], columns: Int = 120, rows: Int = 40) throws {
        var arguments = ["-f", "/dev/null", "new-session", "-d", "-s", name, "-x", String(columns), "-y", String(rows)]
        for (key, value) in environment.sorted(by: { $0.key < $1.key }) { arguments += ["-e", "\(key)=\(value)"] }
        arguments.append("\(command); echo exit=$?; sleep 600")
        // This command starts the tmux server, which daemonizes and would keep every file
        // descriptor it inherits, including those Foundation uses to notice that its child has
        // exited; the test would then wait forever. So a shell closes all but 0-2 first and runs
        // tmux with /dev/null.
        let quoted = (["-L", server, "-u"] + arguments).map {
            "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
        let script = """
            for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done 2>/dev/null
            exec \(Self.tmux) \(quoted.joined(separator: " ")) </dev/null >/dev/null 2>&1
            """
        let result = try CommandRunner.run("/bin/bash", ["-c", script])
        guard result.status == 0 else {
            throw TmuxFailed(description: "tmux new-session failed (status \(result.status))")
        }
    }

    /// The visible screen as text.
    func screen() throws -> String {
        try run(["capture-pane", "-p", "-t", name])
    }

    /// The scrollback and the visible screen: what scrolled off the top is here too.
    func history() throws -> String {
        try run(["capture-pane", "-p", "-t", name, "-S", "-"])
    }

    func send(_ keys: String...) throws {
        try run(["send-keys", "-t", name] + keys)
    }

    /// Sends `signal` to the processes called `name` running in the window (descendants of the
    /// window's shell), as `kill` from another terminal or a closed SSH session would.
    func signalCommand(_ signal: Int32, named name: String) throws {
        let shell = try run(["display-message", "-p", "-t", self.name, "#{pane_pid}"]).trimmingCharacters(
            in: .whitespacesAndNewlines
        )
        var pending = [shell]
        var matched: [pid_t] = []
        while let parent = pending.popLast() {
            let children = try CommandRunner.run("/usr/bin/pgrep", ["-P", parent]).stdout.split(separator: "\n").map(
                String.init
            )
            for child in children {
                let command = (try? String(contentsOfFile: "/proc/\(child)/comm", encoding: .utf8))?.trimmingCharacters(
                    in: .whitespacesAndNewlines
                )
                if command == name, let pid = pid_t(child) { matched.append(pid) }
                pending.append(child)
            }
        }
        guard !matched.isEmpty else {
            throw TmuxFailed(description: "no \(name) runs under the window's shell \(shell)")
        }
        for pid in matched { kill(pid, signal) }
    }

    func resize(columns: Int, rows: Int) throws {
        try run(["resize-window", "-t", name, "-x", String(columns), "-y", String(rows)])
    }

    /// Polls the screen until `condition` holds; fails with the last screen after `timeout`.
    @discardableResult
    func waitForScreen(_ what: String, timeout: Duration = .seconds(30), _ condition: (String) -> Bool) throws -> String
    {
        let deadline = ContinuousClock.now + timeout
        var seen: [String] = []
        while ContinuousClock.now < deadline {
            let current = try screen()
            if condition(current) { return current }
            if seen.last != current { seen.append(current) }
            usleep(100_000)
        }
        throw TimedOut(
            description: "the screen never showed \(what); the last screens were:\n"
                + seen.suffix(4).joined(separator: "\n-----\n")
        )
    }

    /// Ends the session; the server exits with its last session (kill-server alone was seen to
    /// leave the server running).
    func close() {
        _ = try? run(["kill-session", "-t", name])
        _ = try? run(["kill-server"])
    }

    @discardableResult
    private func run(_ arguments: [String]) throws -> String {
        let result = try CommandRunner.run(Self.tmux, ["-L", server, "-u"] + arguments)
        guard result.status == 0 else {
            throw TmuxFailed(description: "tmux \(arguments.joined(separator: " ")) failed: \(result.stderr)")
        }
        return result.stdout
    }

    /// Keeps a captured screen for the guide: trailing blanks trimmed, written under .build/screens.
    static func keep(_ screen: String, as name: String) {
        let directory = PythonExample.repository.appendingPathComponent(".build/screens")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let trimmed = screen.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
            .joined(separator: "\n").trimmingCharacters(in: .newlines)
        try? (trimmed + "\n").write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        print("screen \(name):\n\(trimmed)")
    }
}

struct TmuxFailed: Error, CustomStringConvertible {
    var description: String
}
