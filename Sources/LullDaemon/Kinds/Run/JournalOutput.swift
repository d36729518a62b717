import LullCore
import Synchronization

/// Run jobs' output, line by line, into the journal on the systemd host: `journalctl
/// JOB_ID=42` shows a job's output beside lulld's own records of it. The lines come from
/// lulld's connection, so they count against lulld's journal rate limit: at most
/// `linesPerWindow` lines per `window` seconds go there over all jobs, and one record says how
/// many were left out (the job's log, `lullctl logs`, keeps all of them).
final class JournalOutput: Sendable {
    private struct Budget {
        var windowStart = 0.0
        var sent = 0
        var dropped: [JobID: Int] = [:]
    }

    private let budget = Mutex(Budget())
    private let linesPerWindow: Int
    private let window: Double
    private let now: @Sendable () -> Double

    init(linesPerWindow: Int = 1000, window: Double = 30, now: @escaping @Sendable () -> Double) {
        self.linesPerWindow = linesPerWindow
        self.window = window
        self.now = now
    }

    func forward(_ id: JobID, _ line: Substring) {
        let (send, dropped) = budget.withLock { budget -> (Bool, [JobID: Int]) in
            let at = now()
            var dropped: [JobID: Int] = [:]
            if at - budget.windowStart >= window {
                dropped = budget.dropped
                budget = Budget(windowStart: at)
            }
            guard budget.sent < linesPerWindow else {
                budget.dropped[id, default: 0] += 1
                return (false, dropped)
            }
            budget.sent += 1
            return (true, dropped)
        }
        for (job, count) in dropped.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            JournalLogHandler.send([
                "MESSAGE=\(count) lines of job \(job.rawValue)'s output were not copied to the journal (over \(linesPerWindow) lines in \(Int(window)) s); lullctl logs \(job.rawValue) has them",
                "PRIORITY=5", "SYSLOG_IDENTIFIER=lulld", "JOB_ID=\(job.rawValue)",
            ])
        }
        guard send else { return }
        JournalLogHandler.send([
            "MESSAGE=\(line)", "PRIORITY=6", "SYSLOG_IDENTIFIER=lull-job-\(id.rawValue)", "JOB_ID=\(id.rawValue)",
        ])
    }
}
