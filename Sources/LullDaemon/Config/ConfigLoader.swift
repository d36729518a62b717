import Foundation
import TOMLKit

/// Reads TOML config files into a `DaemonConfig`. Unknown sections and keys are errors, wrong
/// types and out-of-range values too; every problem is reported, each with file:line and key.
public enum ConfigLoader {
    public static func load(file path: String, over base: DaemonConfig = DaemonConfig()) throws(ConfigError) -> DaemonConfig {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigError(problems: [.init(file: path, message: "cannot read the file: \(error.localizedDescription)")])
        }
        return try parse(text, file: path, over: base)
    }

    public static func parse(_ text: String, file: String, over base: DaemonConfig = DaemonConfig()) throws(ConfigError) -> DaemonConfig {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError(problems: [.init(file: file, line: error.source.begin.line, message: error.description)])
        } catch {
            throw ConfigError(problems: [.init(file: file, message: "not valid TOML: \(error)")])
        }
        var reader = Reader(file: file, lines: LineIndex(text), config: base)
        for section in table.keys.sorted() {
            guard let values = table[section]?.table else {
                reader.problem(section: nil, key: section, "expected a [\(section)] table")
                continue
            }
            switch section {
            case "daemon": reader.readDaemon(values)
            case "limits": reader.readLimits(values)
            case "transfers": reader.readTransfers(values)
            case "retry": reader.readRetry(values)
            default:
                reader.problem(section: nil, key: section, "unknown section [\(section)]; known: [daemon], [limits], [retry], [transfers]")
            }
        }
        if !reader.problems.isEmpty { throw ConfigError(problems: reader.problems) }
        return reader.config
    }

    private struct Reader {
        let file: String
        let lines: LineIndex
        var config: DaemonConfig
        var problems: [ConfigError.Problem] = []

        mutating func problem(section: String?, key: String, _ message: String) {
            let name = section.map { "\($0).\(key)" } ?? key
            problems.append(.init(file: file, line: lines.line(section: section, key: key), key: name, message: message))
        }

        mutating func readDaemon(_ table: TOMLTable) {
            for key in table.keys.sorted() {
                let value = table[key]!
                switch key {
                case "state_dir": config.stateDirectory = absolutePath(value, "daemon", key)
                case "socket": config.socketPath = absolutePath(value, "daemon", key)
                case "socket_mode":
                    guard let text = value.string, let mode = UInt32(text, radix: 8), mode <= 0o777 else {
                        problem(section: "daemon", key: key, "expected an octal mode string such as \"0660\"")
                        continue
                    }
                    config.socketMode = mode
                default:
                    problem(section: "daemon", key: key, "unknown key; known: socket, socket_mode, state_dir")
                }
            }
        }

        mutating func readLimits(_ table: TOMLTable) {
            for key in table.keys.sorted() {
                let value = table[key]!
                switch key {
                case "max_concurrent":
                    config.maxConcurrent = integer(value, "limits", key, 0...4096) ?? config.maxConcurrent
                case "max_request_bytes":
                    config.limits.maxRequestBytes = integer(value, "limits", key, 1024...(256 << 20)) ?? config.limits.maxRequestBytes
                case "max_push_body_bytes":
                    config.limits.maxPushBodyBytes = integer(value, "limits", key, 0...(256 << 20)) ?? config.limits.maxPushBodyBytes
                case "max_batch_jobs":
                    config.limits.maxBatchJobs = integer(value, "limits", key, 1...100_000) ?? config.limits.maxBatchJobs
                default:
                    problem(
                        section: "limits", key: key,
                        "unknown key; known: max_batch_jobs, max_concurrent, max_push_body_bytes, max_request_bytes")
                }
            }
        }

        mutating func readTransfers(_ table: TOMLTable) {
            for key in table.keys.sorted() {
                let value = table[key]!
                switch key {
                case "connect_timeout":
                    config.transfers.connectTimeout = seconds(value, "transfers", key, 0.1...3600) ?? config.transfers.connectTimeout
                case "idle_timeout":
                    config.transfers.idleTimeout = seconds(value, "transfers", key, 1...86_400) ?? config.transfers.idleTimeout
                case "total_timeout":
                    config.transfers.totalTimeout = seconds(value, "transfers", key, 1...(30 * 86_400)) ?? config.transfers.totalTimeout
                case "max_fetch_bytes":
                    config.transfers.maxFetchBytes = Int64(integer(value, "transfers", key, 1...Int.max) ?? Int(config.transfers.maxFetchBytes))
                case "checkpoint_interval":
                    config.transfers.checkpointInterval = seconds(value, "transfers", key, 0.1...60) ?? config.transfers.checkpointInterval
                case "progress_interval":
                    config.transfers.progressInterval = seconds(value, "transfers", key, 0.01...60) ?? config.transfers.progressInterval
                case "allowed_directories":
                    guard let array = value.array else {
                        problem(section: "transfers", key: key, "expected an array of absolute paths")
                        continue
                    }
                    var paths: [String] = []
                    for element in array {
                        guard let path = element.string, path.hasPrefix("/") else {
                            problem(section: "transfers", key: key, "expected an array of absolute paths")
                            break
                        }
                        paths.append(path)
                    }
                    config.allowedDirectories = paths
                default:
                    problem(
                        section: "transfers", key: key,
                        "unknown key; known: allowed_directories, checkpoint_interval, connect_timeout, idle_timeout, max_fetch_bytes, progress_interval, total_timeout")
                }
            }
        }

        mutating func readRetry(_ table: TOMLTable) {
            for key in table.keys.sorted() {
                let value = table[key]!
                switch key {
                case "max_attempts": config.retry.maxAttempts = integer(value, "retry", key, 1...100) ?? config.retry.maxAttempts
                case "base_seconds": config.retry.backoffBase = seconds(value, "retry", key, 0.01...86_400) ?? config.retry.backoffBase
                case "cap_seconds": config.retry.backoffCap = seconds(value, "retry", key, 0.01...(7 * 86_400)) ?? config.retry.backoffCap
                default: problem(section: "retry", key: key, "unknown key; known: base_seconds, cap_seconds, max_attempts")
                }
            }
        }

        /// A duration in seconds, integer or float.
        private mutating func seconds(_ value: any TOMLValueConvertible, _ section: String, _ key: String, _ range: ClosedRange<Double>) -> Double? {
            guard let number = value.double ?? value.int.map(Double.init) else {
                problem(section: section, key: key, "expected a number of seconds")
                return nil
            }
            guard range.contains(number) else {
                problem(section: section, key: key, "\(number) is out of range \(range.lowerBound)...\(range.upperBound) seconds")
                return nil
            }
            return number
        }

        private mutating func integer(_ value: any TOMLValueConvertible, _ section: String, _ key: String, _ range: ClosedRange<Int>) -> Int? {
            guard let number = value.int else {
                problem(section: section, key: key, "expected an integer")
                return nil
            }
            guard range.contains(number) else {
                problem(section: section, key: key, "\(number) is out of range \(range.lowerBound)...\(range.upperBound)")
                return nil
            }
            return number
        }

        private mutating func absolutePath(_ value: any TOMLValueConvertible, _ section: String, _ key: String) -> String? {
            guard let path = value.string, path.hasPrefix("/") else {
                problem(section: section, key: key, "expected an absolute path string")
                return nil
            }
            return path
        }
    }
}

/// Finds the line a key was written on, for error messages (the TOML parser does not keep it).
struct LineIndex {
    private let lines: [Substring]

    init(_ text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    func line(section: String?, key: String) -> Int? {
        var current: String?
        for (index, raw) in lines.enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") {
                current = line.trimmingCharacters(in: CharacterSet(charactersIn: "[] "))
                if section == nil, current == key { return index + 1 }
                continue
            }
            guard current == section, line.hasPrefix(key) else { continue }
            let rest = line.dropFirst(key.count).drop(while: { $0 == " " || $0 == "\t" })
            if rest.hasPrefix("=") { return index + 1 }
        }
        return nil
    }
}
