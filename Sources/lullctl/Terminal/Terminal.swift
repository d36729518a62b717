import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The controlling terminal on stdin/stdout: whether there is one, its size, raw input mode
/// and unbuffered whole-frame writes.
final class Terminal {
    struct Size: Equatable {
        var columns: Int
        var rows: Int
    }

    private var savedMode: termios?

    /// Whether stdout is a terminal (not a pipe or a file): decides between live and plain output.
    static var standardOutputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Whether to draw with Unicode block characters: the locale says UTF-8.
    static var supportsUnicode: Bool {
        let locale =
            CallerEnvironment.value("LC_ALL") ?? CallerEnvironment.value("LC_CTYPE") ?? CallerEnvironment.value("LANG")
            ?? ""
        return locale.uppercased().contains("UTF-8") || locale.uppercased().contains("UTF8")
    }

    /// The window size from the kernel, else $COLUMNS/$LINES, else 80×24.
    static func size() -> Size {
        var window = winsize()
        let result = withUnsafeMutablePointer(to: &window) { ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), $0) }
        if result == 0, window.ws_col > 0, window.ws_row > 0 {
            return Size(columns: Int(window.ws_col), rows: Int(window.ws_row))
        }
        return Size(
            columns: CallerEnvironment.value("COLUMNS").flatMap(Int.init) ?? 80,
            rows: CallerEnvironment.value("LINES").flatMap(Int.init) ?? 24
        )
    }

    /// Keys arrive one by one, unechoed, and ctrl-c is a key rather than a signal, so a
    /// full-screen view can quit cleanly and restore the screen.
    func enterRawMode() {
        var mode = termios()
        guard tcgetattr(STDIN_FILENO, &mode) == 0 else { return }
        savedMode = mode
        mode.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG)
        mode.c_cc.6 = 1  // VMIN: return after one byte
        mode.c_cc.5 = 0  // VTIME: no timer
        tcsetattr(STDIN_FILENO, TCSANOW, &mode)
    }

    func restoreMode() {
        guard var mode = savedMode else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &mode)
        savedMode = nil
    }

    /// Writes everything in one go (looping over partial writes), so a frame never shows half-drawn.
    static func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes {
                Glibc.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset)
            }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            offset += written
        }
    }
}
