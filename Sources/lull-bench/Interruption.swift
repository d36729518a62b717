import Foundation
import LullTestSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C or SIGTERM ends a run without leaving anything of it behind. Foundation's `Process`
/// starts each child in a process group of its own, out of reach of the terminal's SIGINT, so
/// lulld, nginx and the peers' servers would run on, and the sections' directories would stay.
/// The run keeps its temporary files in one directory (`TMPDIR` points there, for the bench and
/// what it starts); on either signal everything it started gets SIGTERM, SIGKILL once a second
/// has passed, the directory goes, and the bench exits 128 + the signal's number, as shells
/// report an interrupted command.
///
/// The signals are caught by a handler, not ignored or blocked: children inherit an ignored
/// signal or a blocked mask across `exec`, and a caught one comes back to its default there.
final class Interruption: Sendable {
    let scratch: String
    /// Set once a signal came: the run's own ending must then wait for the handler's exit, or
    /// an error the signal caused (lulld gone during its start) would exit first, with 1.
    private let interrupted = Atomic(false)

    /// Makes the run's directory under the current temporary directory and points `TMPDIR` at it.
    init(progress: @escaping @Sendable (String) -> Void) throws {
        let scratch = FileManager.default.temporaryDirectory.path + "/lull-bench-run-\(getpid())"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        setenv("TMPDIR", scratch, 1)
        self.scratch = scratch
        var fds: [CInt] = [-1, -1]
        guard pipe(&fds) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        signalPipe = fds[1]
        let readEnd = fds[0]
        Thread.detachNewThread { [self] in
            var number: UInt8 = 0
            while read(readEnd, &number, 1) != 1 {}
            interrupted.store(true, ordering: .sequentiallyConsistent)
            progress("interrupted: ending what the run started and removing \(scratch)")
            Self.endStarted(scratch: scratch)
            try? FileManager.default.removeItem(atPath: scratch)
            _exit(128 + CInt(number))
        }
        for number in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalPipe, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
    }

    /// The end of the run: the directory goes, unless a signal came, whose handler ends it.
    func finish() {
        while interrupted.load(ordering: .sequentiallyConsistent) { pause() }
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

/// The write end of the pipe the signal handler writes the signal's number to: a plain global,
/// since a handler captures nothing. Set once, before the handler is installed.
nonisolated(unsafe) private var signalPipe: CInt = -1
