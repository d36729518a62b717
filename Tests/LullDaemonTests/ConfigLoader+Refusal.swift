@testable import LullDaemon

extension ConfigLoader {
    /// The error a config text is refused with, or nil when it loads: for tests of one key's
    /// bounds and messages.
    static func refusal(_ text: String) -> String? {
        do {
            _ = try parse(text, file: "t.toml")
            return nil
        } catch {
            return error.description
        }
    }
}
