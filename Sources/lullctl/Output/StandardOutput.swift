import CLullSys

#if canImport(Glibc)
import Glibc
#endif

/// lullctl's standard output, whose write errors end the program. SwiftNIO ignores SIGPIPE for
/// the whole process, so without this a reader that went away (`lullctl events --follow | head`)
/// would leave a follower running for ever, and a full disk (`> /dev/full`) would exit 0 with
/// nothing written.
enum StandardOutput {
    /// The status of a program ended by SIGPIPE (128 + 13), which the shell expects of a writer
    /// whose reader left.
    static let readerGone: Int32 = 141

    /// Pushes out what `print` buffered. A reader that went away ends lullctl quietly with
    /// `readerGone`; any other failure with status 1 and the reason.
    static func flush() {
        let code = lull_flush_standard_output()
        guard code != 0 else { return }
        if code == EPIPE { exit(readerGone) }
        printError("cannot write the output: \(String(cString: strerror(code)))")
        exit(1)
    }

    /// Writes bytes as they are (a run job's output need not be text), after what `print`
    /// buffered.
    static func write(_ bytes: [UInt8]) {
        flush()
        var rest = bytes[...]
        while !rest.isEmpty {
            let written = rest.withUnsafeBytes { Glibc.write(1, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE { exit(readerGone) }
                printError("cannot write the output: \(String(cString: strerror(errno)))")
                exit(1)
            }
            rest = rest.dropFirst(written)
        }
    }
}
