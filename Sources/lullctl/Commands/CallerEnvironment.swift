#if canImport(Glibc)
import Glibc
#endif

/// The environment lullctl was started with, read from the C library: `ProcessInfo` sets up
/// Foundation's process state on first use, a cost each one-shot command would pay.
enum CallerEnvironment {
    static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Every variable, for code that takes the environment as a dictionary (`SocketDiscovery`).
    /// A name given twice keeps its first value, as `getenv` does.
    static var all: [String: String] {
        var variables: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "="), variables[String(text[..<equals])] == nil {
                variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return variables
    }
}
