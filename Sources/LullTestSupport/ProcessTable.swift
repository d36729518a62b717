import Foundation

/// Processes as `/proc` lists them: who a process's parent is, what state it is in, and the
/// tree below one. For tools and tests that must find what a run started (a bench's daemons).
public enum ProcessTable {
    /// The fields of `/proc/PID/stat` that follow the command's closing parenthesis (the command
    /// itself may hold spaces and `)`): the state first (`stat(5)`'s field 3), then the parent.
    public static func statFields(of pid: pid_t) -> [Substring]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    /// The state letter and the parent of `pid`.
    public static func stat(of pid: pid_t) -> (state: Character, parent: pid_t)? {
        guard let fields = statFields(of: pid), fields.count > 1, let state = fields[0].first,
            let parent = pid_t(fields[1])
        else { return nil }
        return (state, parent)
    }

    /// Every process whose chain of parents leads to `ancestor`.
    public static func descendants(of ancestor: pid_t) -> [pid_t] {
        var children: [pid_t: [pid_t]] = [:]
        for pid in all() {
            if let parent = stat(of: pid)?.parent { children[parent, default: []].append(pid) }
        }
        var found: [pid_t] = []
        var next = [ancestor]
        while let pid = next.popLast() {
            let below = children[pid] ?? []
            found += below
            next += below
        }
        return found
    }

    /// Every process with a variable (`NAME=value`) in its environment that `matches`: what a
    /// run started, detached ones included, when it gave them a variable of its own.
    public static func withEnvironment(where matches: (String) -> Bool) -> [pid_t] {
        all().filter { pid in
            guard let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return environment.split(separator: 0).contains { matches(String(decoding: $0, as: UTF8.self)) }
        }
    }

    /// Running, or stopped; not ended, and not a zombie left for its parent to reap.
    public static func isAlive(_ pid: pid_t) -> Bool {
        guard let state = stat(of: pid)?.state else { return false }
        return state != "Z" && state != "X"
    }

    public static func name(of pid: pid_t) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
    }

    private static func all() -> [pid_t] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(pid_t.init)
    }
}
