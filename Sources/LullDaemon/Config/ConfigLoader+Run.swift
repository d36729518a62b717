import LullTransfer
import TOMLKit

// `[run]`: what the daemon keeps of run jobs' output.

extension ConfigLoader.Reader {
    mutating func readRun(_ table: TOMLTable) {
        for key in table.keys.sorted() {
            let value = table[key]!
            switch key {
            case "max_log_bytes":
                let range = Int(RunSettings.maxLogBytesRange.lowerBound)...Int(RunSettings.maxLogBytesRange.upperBound)
                if let bytes = integer(value, "run", key, range) { config.run.maxLogBytes = Int64(bytes) }
            default:
                problem(section: "run", key: key, "unknown key; known: max_log_bytes")
            }
        }
    }
}
