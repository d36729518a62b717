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
            default:
                reader.problem(
                    section: nil,
                    key: section,
                    "unknown section [\(section)]; known: [daemon], [limits], [retry], [transfers], [sensors], [hooks], [classes.NAME]"
                )
            }
        }
        retry = reader.retry
        if !reader.problems.isEmpty { throw ConfigError(problems: reader.problems) }
        return reader.config
    }

    /// `[retry]` and the retry keys classes set themselves, over every file read so far. Applied
    /// once all files are read: a drop-in may define a class after the file holding `[retry]`.
    struct RetryDefaults {
        private struct Value<T> {
            var value: T
            var file: Int
        }

        /// The index of the file being read: later files override earlier ones.
        private var file = -1
        private var attempts: Value<Int>?
        private var base: Value<Double>?
        private var cap: Value<Double>?
        /// The last file that set each retry key of a class in its `[classes.NAME]` table.
        private var classKeys: [String: [JobClassPolicy.Setting: Int]] = [:]

        mutating func startFile() { file += 1 }

        mutating func setAttempts(_ value: Int) { attempts = Value(value: value, file: file) }
        mutating func setBase(_ value: Double) { base = Value(value: value, file: file) }
        mutating func setCap(_ value: Double) { cap = Value(value: value, file: file) }

        mutating func classSets(_ setting: JobClassPolicy.Setting, of name: String) {
            classKeys[name, default: [:]][setting] = file
        }

        /// A `[retry]` key wins over a class's own key set in an earlier file; the class's key
        /// wins when set in the same file as `[retry]` or a later one.
        func apply(to policy: inout SchedulingPolicy) {
            for index in policy.classes.indices {
                let set = classKeys[policy.classes[index].name] ?? [:]
                func applies<T>(_ value: Value<T>?, over setting: JobClassPolicy.Setting) -> T? {
                    guard let value else { return nil }
                    if let classFile = set[setting], classFile >= value.file { return nil }
                    return value.value
                }
                if let attempts = applies(attempts, over: .maxAttempts) {
                    policy.classes[index].retry.maxAttempts = attempts
                }
                if let base = applies(base, over: .backoffBase) { policy.classes[index].retry.backoffBase = base }
                if let cap = applies(cap, over: .backoffCap) { policy.classes[index].retry.backoffCap = cap }
            }
        }
    }

    private struct Reader {
        let file: String
        let lines: LineIndex
        var config: DaemonConfig
        var retry: RetryDefaults
        var problems: [ConfigError.Problem] = []

        func origin(_ section: String, _ key: String) -> ConfigOrigin {
            ConfigOrigin(file: file, line: lines.line(section: section, key: key), key: "\(section).\(key)")
        }

        mutating func problem(section: String?, key: String, _ message: String) {
            let name = section.map { "\($0).\(key)" } ?? key
            problems.append(
                .init(file: file, line: lines.line(section: section, key: key), key: name, message: message)
            )
        }

        mutating func readDaemon(_ table: TOMLTable) {
            for key in table.keys.sorted() {
                let value = table[key]!
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
                let value = table[key]!
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
                case "max_queued_per_owner":
                    config.limits.maxQueuedPerOwner =
                        integer(value, "limits", key, 1...100_000_000) ?? config.limits.maxQueuedPerOwner
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
                        "unknown key; known: max_batch_jobs, max_concurrent, max_connections, max_connections_per_uid, max_per_host, max_per_owner, max_push_body_bytes, max_queued_per_owner, max_request_bytes, per_owner_metered_bytes_per_day, request_read_timeout"
                    )
                }
            }
        }

        mutating func readTransfers(_ table: TOMLTable) {
            for key in table.keys.sorted() {
                let value = table[key]!
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
                let value = table[key]!
                switch key {
                case "max_attempts": if let v = integer(value, "retry", key, 1...100) { retry.setAttempts(v) }
                case "base_seconds": if let v = seconds(value, "retry", key, 0.01...86_400) { retry.setBase(v) }
                case "cap_seconds": if let v = seconds(value, "retry", key, 0.01...(7 * 86_400)) { retry.setCap(v) }
                default:
                    problem(section: "retry", key: key, "unknown key; known: base_seconds, cap_seconds, max_attempts")
                }
            }
        }

        /// `[classes.NAME]`: a built-in class's settings changed, or a new class.
        mutating func readClasses(_ table: TOMLTable) {
            for name in table.keys.sorted() {
                guard let settings = table[name]?.table else {
                    problem(section: "classes", key: name, "expected a [classes.\(name)] table")
                    continue
                }
                let section = "classes.\(name)"
                var policy =
                    config.policy.classPolicy(named: name)
                    ?? JobClassPolicy(name: name, maxConcurrent: 2, weight: 2)
                for key in settings.keys.sorted() {
                    let value = settings[key]!
                    if key == "ca_file" {
                        // Read by the transfers, not the scheduler: checked here, kept with them.
                        if let path = absolutePath(value, section, key) {
                            if let trouble = CertificateAuthorities.problem(with: path) {
                                problem(
                                    section: section,
                                    key: key,
                                    "\(trouble); give a PEM file of certificate authorities"
                                )
                            } else {
                                config.transfers.classCAFiles[name] = path
                            }
                        }
                        continue
                    }
                    guard let setting = JobClassPolicy.Setting(rawValue: key) else {
                        problem(
                            section: section,
                            key: key,
                            "unknown key; known: \((JobClassPolicy.Setting.allCases.map(\.rawValue) + ["ca_file"]).sorted().joined(separator: ", "))"
                        )
                        continue
                    }
                    var ok = true
                    switch setting {
                    case .maxConcurrent:
                        if let v = integer(value, section, key, 0...4096) {
                            policy.maxConcurrent = v
                        } else {
                            ok = false
                        }
                    case .weight:
                        if let v = integer(value, section, key, 1...1000) { policy.weight = v } else { ok = false }
                    case .requiresAC: if let v = flag(value, section, key) { policy.requiresAC = v } else { ok = false }
                    case .minBattery:
                        if let v = percent(value, section, key) { policy.minBattery = v } else { ok = false }
                    case .allowMetered:
                        if let v = flag(value, section, key) { policy.allowMetered = v } else { ok = false }
                    case .allowCellular:
                        if let v = flag(value, section, key) { policy.allowCellular = v } else { ok = false }
                    case .maxCPUPressure:
                        if let v = percent(value, section, key) { policy.maxCPUPressure = v } else { ok = false }
                    case .maxMemoryPressure:
                        if let v = percent(value, section, key) { policy.maxMemoryPressure = v } else { ok = false }
                    case .coalesce: if let v = flag(value, section, key) { policy.coalesce = v } else { ok = false }
                    case .window:
                        if let text = value.string, let window = Self.window(text) {
                            policy.window = window
                        } else {
                            problem(
                                section: section,
                                key: key,
                                "expected \"HH:MM-HH:MM\" in local time (00:00 to 23:59), e.g. \"01:00-05:00\""
                            )
                            ok = false
                        }
                    case .maxAttempts:
                        if let v = integer(value, section, key, 1...100) {
                            policy.retry.maxAttempts = v
                        } else {
                            ok = false
                        }
                        retry.classSets(setting, of: name)
                    case .backoffBase:
                        if let v = seconds(value, section, key, 0.01...86_400) {
                            policy.retry.backoffBase = v
                        } else {
                            ok = false
                        }
                        retry.classSets(setting, of: name)
                    case .backoffCap:
                        if let v = seconds(value, section, key, 0.01...(7 * 86_400)) {
                            policy.retry.backoffCap = v
                        } else {
                            ok = false
                        }
                        retry.classSets(setting, of: name)
                    case .maxMeteredJobBytes:
                        if let v = integer(value, section, key, 0...Int.max) {
                            policy.maxMeteredJobBytes = Int64(v)
                        } else {
                            ok = false
                        }
                    case .meteredBytesPerDay:
                        if let v = integer(value, section, key, 0...Int.max) {
                            policy.meteredBytesPerDay = Int64(v)
                        } else {
                            ok = false
                        }
                    }
                    if ok { policy.origins[setting] = origin(section, key) }
                }
                if let index = config.policy.classes.firstIndex(where: { $0.name == name }) {
                    config.policy.classes[index] = policy
                } else {
                    config.policy.classes.append(policy)
                }
            }
        }

        mutating func readSensors(_ table: TOMLTable) {
            for key in table.keys.sorted() {
                let value = table[key]!
                switch key {
                case "bus":
                    guard let text = value.string, !text.isEmpty else {
                        problem(
                            section: "sensors",
                            key: key,
                            "expected \"system\" or a D-Bus address such as \"unix:path=/run/dbus/system_bus_socket\""
                        )
                        continue
                    }
                    config.sensors.bus = text == "system" ? .system : .address(text)
                case "power_supply_root":
                    config.sensors.powerSupplyRoot =
                        absolutePath(value, "sensors", key) ?? config.sensors.powerSupplyRoot
                case "proc_root":
                    config.sensors.procRoot = absolutePath(value, "sensors", key) ?? config.sensors.procRoot
                case "metered_interfaces", "cellular_interfaces":
                    guard let array = value.array, array.allSatisfy({ $0.string != nil }) else {
                        problem(
                            section: "sensors",
                            key: key,
                            "expected an array of interface-name patterns such as [\"wwan*\"]"
                        )
                        continue
                    }
                    let patterns = array.compactMap(\.string)
                    if key == "metered_interfaces" {
                        config.sensors.meteredInterfaces = patterns
                    } else {
                        config.sensors.cellularInterfaces = patterns
                    }
                default:
                    problem(
                        section: "sensors",
                        key: key,
                        "unknown key; known: bus, cellular_interfaces, metered_interfaces, power_supply_root, proc_root"
                    )
                }
            }
        }

        mutating func readHooks(_ table: TOMLTable) {
            for key in table.keys.sorted() {
                let value = table[key]!
                switch key {
                case "manager":
                    switch value.string {
                    case "auto": config.hooks.manager = .auto
                    case "system": config.hooks.manager = .system
                    case "user": config.hooks.manager = .user
                    case let text? where text.hasPrefix("unix:"): config.hooks.manager = .address(text)
                    default:
                        problem(
                            section: "hooks",
                            key: key,
                            "expected \"auto\", \"system\", \"user\" or a D-Bus address such as \"unix:path=/run/dbus/system_bus_socket\""
                        )
                    }
                case "allowed_units":
                    guard let array = value.array, array.allSatisfy({ $0.string != nil }) else {
                        problem(
                            section: "hooks",
                            key: key,
                            "expected an array of unit names such as [\"sync-done.service\", \"backup@.service\"]"
                        )
                        continue
                    }
                    let names = array.compactMap(\.string)
                    if let bad = names.first(where: { UnitName($0) == nil }) {
                        problem(
                            section: "hooks",
                            key: key,
                            "\"\(bad)\" is not a .service or .target unit name (A-Z a-z 0-9 : _ . - \\ and at most one @)"
                        )
                        continue
                    }
                    config.hooks.allowedUnits = names
                    config.origins["hooks.allowed_units"] = origin("hooks", key)
                default:
                    problem(section: "hooks", key: key, "unknown key; known: allowed_units, manager")
                }
            }
        }

        static func window(_ text: String) -> DailyWindow? {
            let parts = text.split(separator: "-").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { return nil }
            func minutes(_ clock: String) -> Int? {
                let pieces = clock.split(separator: ":")
                guard pieces.count == 2, let h = Int(pieces[0]), let m = Int(pieces[1]), (0..<24).contains(h),
                    (0..<60).contains(m)
                else { return nil }
                return h * 60 + m
            }
            guard let start = minutes(parts[0]), let end = minutes(parts[1]) else { return nil }
            return DailyWindow(startMinute: start, endMinute: end)
        }

        private mutating func flag(_ value: any TOMLValueConvertible, _ section: String, _ key: String) -> Bool? {
            guard let flag = value.bool else {
                problem(section: section, key: key, "expected true or false")
                return nil
            }
            return flag
        }

        private mutating func percent(_ value: any TOMLValueConvertible, _ section: String, _ key: String) -> Double? {
            seconds(value, section, key, 0...100, unit: "percent")
        }

        /// A duration in seconds, integer or float.
        private mutating func seconds(
            _ value: any TOMLValueConvertible,
            _ section: String,
            _ key: String,
            _ range: ClosedRange<Double>,
            unit: String = "seconds"
        ) -> Double? {
            guard let number = value.double ?? value.int.map(Double.init) else {
                problem(section: section, key: key, "expected a number (\(unit))")
                return nil
            }
            guard range.contains(number) else {
                problem(
                    section: section,
                    key: key,
                    "\(number) is out of range \(range.lowerBound)...\(range.upperBound) \(unit)"
                )
                return nil
            }
            return number
        }

        private mutating func integer(
            _ value: any TOMLValueConvertible,
            _ section: String,
            _ key: String,
            _ range: ClosedRange<Int>
        ) -> Int? {
            guard let number = value.int else {
                problem(section: section, key: key, "expected an integer")
                return nil
            }
            guard range.contains(number) else {
                problem(
                    section: section,
                    key: key,
                    "\(number) is out of range \(range.lowerBound)...\(range.upperBound)"
                )
                return nil
            }
            return number
        }

        private mutating func absolutePath(
            _ value: any TOMLValueConvertible,
            _ section: String,
            _ key: String
        ) -> String? {
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
