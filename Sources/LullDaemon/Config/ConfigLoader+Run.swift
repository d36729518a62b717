import LullCore
import LullTransfer
import TOMLKit

// `[run]`: what the daemon keeps of run jobs' output and where it runs them; and the run
// defaults of `[classes.NAME]`.

extension ConfigLoader.Reader {
    mutating func readRun(_ table: TOMLTable) {
        for key in table.keys.sorted() {
            guard let value = entry(table, key, section: "run") else { continue }
            switch key {
            case "max_log_bytes":
                let range = Int(RunSettings.maxLogBytesRange.lowerBound)...Int(RunSettings.maxLogBytesRange.upperBound)
                if let bytes = integer(value, "run", key, range) { config.run.maxLogBytes = Int64(bytes) }
            case "host":
                guard let text = value.string, let host = RunHost(rawValue: text) else {
                    problem(section: "run", key: key, "expected \"auto\", \"systemd\" or \"process\"")
                    continue
                }
                config.run.configuredHost = host
                // `auto` is resolved at start-up; until then, the host that needs nothing.
                config.run.host = host == .auto ? .process : host
                config.origins["run.host"] = origin("run", key)
            case "cgroup":
                guard let text = value.string, let setting = DelegatedCgroups.Setting(rawValue: text) else {
                    problem(section: "run", key: key, "expected \"auto\" or \"off\"")
                    continue
                }
                config.run.cgroup = setting
            default:
                problem(section: "run", key: key, "unknown key; known: cgroup, host, max_log_bytes")
            }
        }
    }

    /// `[classes.NAME] nice`, `cpu_weight`, `memory_max`, `io_weight`, `tasks_max`: read by the
    /// runner of run jobs, kept with it.
    mutating func readRunDefault(
        _ key: String,
        _ value: any TOMLValueConvertible,
        section: String,
        className: String
    ) {
        var defaults = config.run.defaults(of: className)
        if key == "nice" {
            guard let nice = integer(value, section, key, -20...19) else { return }
            defaults.nice = nice
        } else {
            guard let number = value.int.map(Int64.init) else {
                problem(section: section, key: key, "expected an integer")
                return
            }
            if let trouble = RunResources.problem(field: key, value: number) {
                problem(section: section, key: key, trouble)
                return
            }
            _ = defaults.resources.set(key, to: number)
        }
        config.run.classDefaults[className] = defaults
        config.origins["\(section).\(key)"] = origin(section, key)
    }
}
