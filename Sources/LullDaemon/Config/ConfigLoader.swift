import Foundation
import LullCore
import LullTransfer
import TOMLKit

/// Reads TOML config files into a `DaemonConfig`. Unknown sections and keys are errors, wrong
/// types and out-of-range values too; every problem is reported, each with file:line and key.
public enum ConfigLoader {
    /// Reads `path` and then its drop-ins, `lull.d/*.toml` in the same directory in name order,
    /// each over the result of the ones before (so `/etc/lull/lull.d/50-lte.toml` refines
    /// `/etc/lull/lull.toml`). Problems of every file are reported together.
    public static func loadWithDropIns(file path: String) throws(ConfigError) -> DaemonConfig {
        var config = DaemonConfig()
        var retry = RetryDefaults()
        var problems: [ConfigError.Problem] = []
        for file in [path] + dropIns(of: path) {
            do {
                config = try read(contentsOf: file, over: config, retry: &retry)
            } catch {
                problems += error.problems
            }
        }
        if !problems.isEmpty { throw ConfigError(problems: problems) }
        // Only now: a class that a drop-in defines after the file holding `[retry]` is covered too.
        retry.apply(to: &config.policy)
        return config
    }

    /// The drop-in files of a config file, in the order they apply.
    public static func dropIns(of path: String) -> [String] {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("lull.d").path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".toml") && !$0.hasPrefix(".") }.sorted().map { directory + "/" + $0 }
    }

    public static func load(
        file path: String,
        over base: DaemonConfig = DaemonConfig()
    ) throws(ConfigError) -> DaemonConfig {
        var retry = RetryDefaults()
        var config = try read(contentsOf: path, over: base, retry: &retry)
        retry.apply(to: &config.policy)
        return config
    }

    public static func parse(
        _ text: String,
        file: String,
        over base: DaemonConfig = DaemonConfig()
    ) throws(ConfigError) -> DaemonConfig {
        var retry = RetryDefaults()
        var config = try parse(text, file: file, over: base, retry: &retry)
        retry.apply(to: &config.policy)
        return config
    }

    private static func read(
        contentsOf path: String,
        over base: DaemonConfig,
        retry: inout RetryDefaults
    ) throws(ConfigError) -> DaemonConfig {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigError(problems: [
                .init(file: path, message: "cannot read the file: \(error.localizedDescription)")
            ])
        }
        return try parse(text, file: path, over: base, retry: &retry)
    }

    /// One file over `base`, its `[retry]` and class retry keys added to `retry` but not yet applied.
    private static func parse(
        _ text: String,
        file: String,
        over base: DaemonConfig,
        retry: inout RetryDefaults
    ) throws(ConfigError) -> DaemonConfig {
        retry.startFile()
        let unparsable = TOMLPreflight.problems(in: text, file: file)
        if !unparsable.isEmpty { throw ConfigError(problems: unparsable) }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError(problems: [.init(file: file, line: error.source.begin.line, message: error.description)])
        } catch {
            throw ConfigError(problems: [.init(file: file, message: "not valid TOML: \(error)")])
        }
        var reader = Reader(file: file, lines: LineIndex(text), config: base, retry: retry)
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
            case "classes": reader.readClasses(values)
            case "sensors": reader.readSensors(values)
            case "hooks": reader.readHooks(values)
            case "run": reader.readRun(values)
            default:
                reader.problem(
                    section: nil,
                    key: section,
                    "unknown section [\(section)]; known: [daemon], [limits], [retry], [transfers], [sensors], [hooks], [run], [classes.NAME]"
                )
            }
        }
        retry = reader.retry
        if !reader.problems.isEmpty { throw ConfigError(problems: reader.problems) }
        return reader.config
    }

    struct Reader {
        let file: String
        let lines: LineIndex
        var config: DaemonConfig
        var retry: RetryDefaults
        var problems: [ConfigError.Problem] = []

        /// `occurrence`: which of an array of tables of that name (0 for a plain table).
        func origin(_ section: String, _ key: String, occurrence: Int = 0) -> ConfigOrigin {
            ConfigOrigin(
                file: file,
                line: lines.line(section: section, key: key, occurrence: occurrence),
                key: "\(section).\(key)"
            )
        }

        mutating func problem(section: String?, key: String, occurrence: Int = 0, _ message: String) {
            let name = section.map { "\($0).\(key)" } ?? key
            problems.append(
                .init(
                    file: file,
                    line: lines.line(section: section, key: key, occurrence: occurrence),
                    key: name,
                    message: message
                )
            )
        }

        /// The value at a key the table lists. TOMLKit lists a quoted key that holds `\u0000`
        /// cut short at it, and the cut key finds nothing: a problem, not a crash.
        mutating func entry(_ table: TOMLTable, _ key: String, section: String) -> TOMLValueConvertible? {
            guard let value = table[key] else {
                problem(section: section, key: key, "a key here holds \\u0000, which no setting's name has; remove it")
                return nil
            }
            return value
        }

        mutating func readDaemon(_ table: TOMLTable) {
            for key in table.keys.sorted() {
                guard let value = entry(table, key, section: "daemon") else { continue }
                config.origins["daemon.\(key)"] = origin("daemon", key)
                switch key {
                case "state_dir": config.stateDirectory = absolutePath(value, "daemon", key)
                case "socket": config.socketPath = absolutePath(value, "daemon", key)
                case "socket_mode":
                    guard let text = value.string, let mode = UInt32(text, radix: 8), mode <= 0o777 else {
                        problem(section: "daemon", key: key, "expected an octal mode string such as \"0660\"")
                        continue
                    }
                    config.socketMode = mode
                case "socket_name":
                    guard let text = value.string, !text.isEmpty, text.count <= 255, !text.contains(":"),
                        text.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 32 && $0.value < 127 })
                    else {
                        problem(
                            section: "daemon",
                            key: key,
                            "expected a FileDescriptorName= such as \"control\" (printable ASCII, no ':' or spaces, at most 255 characters)"
                        )
                        continue
                    }
                    config.socketName = text
                default:
                    problem(
                        section: "daemon",
                        key: key,
                        "unknown key; known: socket, socket_mode, socket_name, state_dir"
                    )
                }
            }
        }

        mutating func readLimits(_ table: TOMLTable) {
            for key in table.keys.sorted() {
                guard let value = entry(table, key, section: "limits") else { continue }
                switch key {
                case "max_concurrent":
                    if let value = integer(value, "limits", key, 0...4096) {
                        config.policy.maxConcurrent = ConfiguredLimit(value, origin: origin("limits", key))
                    }
                case "max_per_host":
                    if let value = integer(value, "limits", key, 1...4096) {
                        config.policy.perHost = ConfiguredLimit(value, origin: origin("limits", key))
                    }
                case "max_per_owner":
                    if let value = integer(value, "limits", key, 1...4096) {
                        config.policy.perOwner = ConfiguredLimit(value, origin: origin("limits", key))
                    }
                case "max_request_bytes":
                    config.limits.maxRequestBytes =
                        integer(value, "limits", key, 1024...(256 << 20)) ?? config.limits.maxRequestBytes
                case "max_push_body_bytes":
                    config.limits.maxPushBodyBytes =
                        integer(value, "limits", key, 0...(256 << 20)) ?? config.limits.maxPushBodyBytes
                case "max_batch_jobs":
                    config.limits.maxBatchJobs =
                        integer(value, "limits", key, 1...100_000) ?? config.limits.maxBatchJobs
                case "request_read_timeout":
                    config.limits.requestReadTimeout =
                        seconds(value, "limits", key, 1...3600) ?? config.limits.requestReadTimeout
                case "max_connections_per_uid":
                    config.maxConnectionsPerUid =
                        integer(value, "limits", key, 1...65_536) ?? config.maxConnectionsPerUid
                case "max_connections":
                    config.maxConnections = integer(value, "limits", key, 1...1_048_576) ?? config.maxConnections
                case "keep_finished_days":
                    if let days = seconds(value, "limits", key, 0.01...36_500, unit: "days") {
                        config.keepFinished = days * 86_400
                    }
                case "max_queued_per_owner":
                    config.limits.maxQueuedPerOwner =
                        integer(value, "limits", key, 1...100_000_000) ?? config.limits.maxQueuedPerOwner
                case "max_bytes_per_second", "bandwidth":
                    var bandwidth = config.policy.bandwidth
                    readBandwidth(value, "limits", key, into: &bandwidth)
                    config.policy.bandwidth = bandwidth
                case "per_owner_metered_bytes_per_day":
                    if let value = integer(value, "limits", key, 0...Int.max) {
                        config.policy.perOwnerMeteredBytesPerDay = ConfiguredLimit(
                            Int64(value),
                            origin: origin("limits", key)
                        )
                    }
                default:
                    problem(
                        section: "limits",
                        key: key,
                        "unknown key; known: bandwidth, keep_finished_days, max_batch_jobs, max_bytes_per_second, max_concurrent, max_connections, max_connections_per_uid, max_per_host, max_per_owner, max_push_body_bytes, max_queued_per_owner, max_request_bytes, per_owner_metered_bytes_per_day, request_read_timeout"
                    )
                }
            }
        }

        mutating func readTransfers(_ table: TOMLTable) {
            for key in table.keys.sorted() {
                guard let value = entry(table, key, section: "transfers") else { continue }
                switch key {
                case "connect_timeout":
                    config.transfers.connectTimeout =
                        seconds(value, "transfers", key, 0.1...3600) ?? config.transfers.connectTimeout
                case "idle_timeout":
                    config.transfers.idleTimeout =
                        seconds(value, "transfers", key, 1...86_400) ?? config.transfers.idleTimeout
                case "total_timeout":
                    config.transfers.totalTimeout =
                        seconds(value, "transfers", key, 1...(30 * 86_400)) ?? config.transfers.totalTimeout
                case "max_fetch_bytes":
                    config.transfers.maxFetchBytes = Int64(
                        integer(value, "transfers", key, 1...Int.max) ?? Int(config.transfers.maxFetchBytes)
                    )
                case "checkpoint_interval":
                    config.transfers.checkpointInterval =
                        seconds(value, "transfers", key, 0.1...60) ?? config.transfers.checkpointInterval
                case "progress_interval":
                    config.transfers.progressInterval =
                        seconds(value, "transfers", key, 0.01...60) ?? config.transfers.progressInterval
                case "tus_chunk_bytes":
                    let range = Int(UploadJob.chunkBytesRange.lowerBound)...Int(UploadJob.chunkBytesRange.upperBound)
                    config.transfers.tusChunkBytes =
                        integer(value, "transfers", key, range).map(Int64.init) ?? config.transfers.tusChunkBytes
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
                        section: "transfers",
                        key: key,
                        "unknown key; known: allowed_directories, checkpoint_interval, connect_timeout, idle_timeout, max_fetch_bytes, progress_interval, total_timeout, tus_chunk_bytes"
                    )
                }
            }
        }

        mutating func readRetry(_ table: TOMLTable) {
            for key in table.keys.sorted() {
                guard let value = entry(table, key, section: "retry") else { continue }
                switch key {
                case "max_attempts": if let v = integer(value, "retry", key, 1...100) { retry.setAttempts(v) }
                case "base_seconds": if let v = seconds(value, "retry", key, 0.01...86_400) { retry.setBase(v) }
                case "cap_seconds": if let v = seconds(value, "retry", key, 0.01...(7 * 86_400)) { retry.setCap(v) }
                default:
                    problem(section: "retry", key: key, "unknown key; known: base_seconds, cap_seconds, max_attempts")
                }
            }
        }

    }
}
