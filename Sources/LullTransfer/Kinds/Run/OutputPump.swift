import CLullSys
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Copies a command's output pipe into its log and tail on a thread of its own, for commands
/// the service manager runs (the process host's `ProcessSupervisor` does this itself). It ends
/// at end of file, or a moment after `finish` when a process that outlived its unit holds
/// the pipe open.
final class OutputPump: Sendable {
    private struct State {
        var tail: String?
        var waiter: CheckedContinuation<String, Never>?
        var drainUntil: Double?
    }

    private let state = Mutex(State())
    private let wake: (read: Int32, write: Int32)

    /// Starts copying `output` (which the pump closes when done); each complete line also goes
    /// to `lines`, when given.
    init(output: Int32, log: RunLogFile, tail: OutputTail, name: String, lines: (@Sendable (Substring) -> Void)? = nil)
    {
        var fds: [Int32] = [-1, -1]
        if lull_pipe(&fds, 1) != 0 { fds = [-1, -1] }
        wake = (fds[0], fds[1])
        let copy = OutputCopy(log: log, tail: tail, lines: lines.map { LineSplitter($0) })
        let thread = Thread { [self] in self.pump(output, into: copy) }
        thread.name = name
        thread.start()
    }

    deinit {
        close(wake.read)
        close(wake.write)
    }

    /// The tail, once the output has ended or `drain` seconds after this call.
    func finish(drain: Double = 1) async -> String {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> String? in
                if let tail = state.tail { return tail }
                state.waiter = continuation
                state.drainUntil = Self.now() + drain
                return nil
            }
            if let done { return continuation.resume(returning: done) }
            var byte: UInt8 = 1
            _ = write(wake.write, &byte, 1)
        }
    }

    private func pump(_ output: Int32, into copy: OutputCopy) {
        var copy = copy
        while true {
            let until = state.withLock { $0.drainUntil }
            if let until, Self.now() >= until { break }
            var fds = [
                pollfd(fd: output, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
            ]
            let wait = until.map { Int32(max(0, ($0 - Self.now()) * 1000).rounded(.up)) } ?? -1
            if poll(&fds, 2, wait) < 0, errno != EINTR { break }
            if fds[1].revents != 0 {
                var bytes = [UInt8](repeating: 0, count: 16)
                _ = bytes.withUnsafeMutableBytes { read(wake.read, $0.baseAddress, $0.count) }
            }
            if fds[0].revents != 0, !copy.read(from: output) { break }
        }
        close(output)
        let text = copy.finish()
        let waiter = state.withLock { state -> CheckedContinuation<String, Never>? in
            state.tail = text
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: text)
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
