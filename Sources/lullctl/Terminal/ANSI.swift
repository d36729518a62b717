/// The few ANSI/VT100 control sequences lullctl needs. Plain escape codes that every terminal
/// emulator and tmux understand, so the live views work over SSH without terminfo or curses.
enum ANSI {
    static let escape = "\u{1B}["
    /// Cursor to the top-left corner.
    static let home = escape + "H"
    /// Erase from the cursor to the end of the line.
    static let clearToEndOfLine = escape + "K"
    /// Erase from the cursor to the end of the screen.
    static let clearToEndOfScreen = escape + "J"
    static let hideCursor = escape + "?25l"
    static let showCursor = escape + "?25h"
    /// The alternate screen: a full-screen view leaves the user's scrollback as it was.
    static let enterAlternateScreen = escape + "?1049h"
    static let leaveAlternateScreen = escape + "?1049l"
    static let reset = escape + "0m"

    /// Cursor up `lines` lines, to the first column.
    static func up(_ lines: Int) -> String {
        lines > 0 ? escape + "\(lines)F" : "\r"
    }
}
