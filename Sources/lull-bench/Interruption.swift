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

    /// Makes the run's directory under the current temporary directory and points `TMPDIR` at it.
    init() throws {
        let scratch = FileManager.default.temporaryDirectory.path + "/lull-bench-run-\(getpid())"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        setenv("TMPDIR", scratch, 1)
        self.scratch = scratch
        var fds: [CInt] = [-1, -1]
        guard pipe(&fds) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        // A handler must never block: the thread reads one byte, and a signal past 64 KiB of
        // them is dropped.
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        // Both globals are made here, before the handler can read them.
        signalPipe = fds[1]
        _ = interruptedBySignal.load(ordering: .sequentiallyConsistent)
        let readEnd = fds[0]
        Thread.detachNewThread {
            var number: UInt8 = 0
            while read(readEnd, &number, 1) != 1 {}
            Self.endStarted(scratch: scratch)
            try? FileManager.default.removeItem(atPath: scratch)
            // Reported after the ending: the same Ctrl-C may have ended a `tee` reading stderr.
            signal(SIGPIPE, SIG_IGN)
            fflush(nil)
            let message = "lull-bench: interrupted: ended what the run started and removed \(scratch)\n"
            try? FileHandle.standardError.write(contentsOf: Data(message.utf8))
            _exit(128 + CInt(number))
        }
        for number in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                let saved = errno
                interruptedBySignal.store(true, ordering: .sequentiallyConsistent)
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalPipe, &byte, 1)
                errno = saved
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
    }

    /// The end of the run: the directory goes, unless a signal came, whose thread ends the run.
    /// The handler sets the mark before the thread wakes, so an error the signal caused in the
    /// run (a call cut short) cannot end the bench first.
    func finish() {
        for number in [SIGINT, SIGTERM] { signal(number, SIG_DFL) }
        while interruptedBySignal.load(ordering: .sequentiallyConsistent) { pause() }
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

/// The write end of the pipe the signal handler writes the signal's number to, and the mark it
/// sets: globals, since a handler captures nothing. Both made before the handler is installed.
nonisolated(unsafe) private var signalPipe: CInt = -1
private let interruptedBySignal = Atomic(false)
