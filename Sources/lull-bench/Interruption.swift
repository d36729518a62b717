import Dispatch
import Foundation
import LullTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C or SIGTERM ends a run without leaving anything of it behind. Foundation's `Process`
/// starts each child in a session of its own, out of reach of the terminal's SIGINT, so lulld,
/// nginx and the peers' servers would run on, and the sections' directories would stay. The run
/// keeps its temporary files in one directory (`TMPDIR` points there, for the bench and what it
/// starts); on either signal everything it started gets SIGTERM, SIGKILL once a second has
/// passed, the directory goes, and the bench exits 128 + the signal's number, as shells report
/// an interrupted command.
final class Interruption {
    let scratch: String
    private let sources: [any DispatchSourceSignal]

    /// Makes the run's directory under the current temporary directory and points `TMPDIR` at it.
    init(progress: @escaping @Sendable (String) -> Void) throws {
        let parent = FileManager.default.temporaryDirectory.path
        let scratch = parent + "/lull-bench-run-\(getpid())"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        setenv("TMPDIR", scratch, 1)
        self.scratch = scratch
        let queue = DispatchQueue(label: "lull-bench.interruption")
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                progress("interrupted: ending what the run started and removing \(scratch)")
                Self.endStarted(scratch: scratch)
                try? FileManager.default.removeItem(atPath: scratch)
                _exit(128 + number)
            }
            source.resume()
            return source
        }
    }

    /// The end of a run that was not interrupted.
    func finish() {
        for source in sources { source.cancel() }
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// SIGTERM to every process the run started, then SIGKILL to those still there after 1 s.
    private static func endStarted(scratch: String) {
        var signalled = started(scratch: scratch)
        for pid in signalled { kill(pid, SIGTERM) }
        for _ in 0..<20 where !signalled.isEmpty {
            usleep(50_000)
            signalled = signalled.filter(ProcessTable.isAlive)
        }
        // With those they started meanwhile.
        for pid in signalled.union(started(scratch: scratch)) { kill(pid, SIGKILL) }
    }

    /// The processes below this one, and those that left it (task-spooler's server detaches)
    /// but carry the run's `TMPDIR` or one inside it.
    private static func started(scratch: String) -> Set<pid_t> {
        Set(ProcessTable.descendants(of: getpid()))
            .union(ProcessTable.withEnvironment { $0 == "TMPDIR=\(scratch)" || $0.hasPrefix("TMPDIR=\(scratch)/") })
            .subtracting([getpid()])
    }
}
