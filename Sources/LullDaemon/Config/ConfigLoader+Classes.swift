import Foundation
import LullCore
import LullTransfer
import TOMLKit

// `[classes.NAME]` tables: the scheduler's class settings, and the transfers' and run jobs'
// per-class ones.

extension ConfigLoader.Reader {
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
                guard let value = entry(settings, key, section: "classes.\(name)") else { continue }
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
                if key == "dscp" || key == "tcp_congestion" {
                    readTrafficMarking(key, value, section: section, className: name)
                    continue
                }
                if RunClassDefaults.keys.contains(key) {
                    readRunDefault(key, value, section: section, className: name)
                    continue
                }
                guard let setting = JobClassPolicy.Setting(rawValue: key) else {
                    problem(
                        section: section,
                        key: key,
                        "unknown key; known: \((JobClassPolicy.Setting.allCases.map(\.rawValue) + ["ca_file", "dscp", "tcp_congestion"] + RunClassDefaults.keys).sorted().joined(separator: ", "))"
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
                case .requiresIdle:
                    if let v = flag(value, section, key) { policy.requiresIdle = v } else { ok = false }
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
                case .onConditionsLost:
                    if let text = value.string, let action = JobClassPolicy.ConditionsLostAction(rawValue: text) {
                        policy.onConditionsLost = action
                    } else {
                        problem(section: section, key: key, "expected \"stop\" or \"finish\"")
                        ok = false
                    }
                case .finishWithin:
                    if let v = seconds(value, section, key, 0...86_400) {
                        policy.finishWithin = v
                    } else {
                        ok = false
                    }
                case .stopOnPressure:
                    if let v = flag(value, section, key) { policy.stopOnPressure = v } else { ok = false }
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
                case .maxBytesPerSecond, .bandwidth:
                    ok = readBandwidth(value, section, key, into: &policy.bandwidth)
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

    /// `[classes.NAME] dscp` and `tcp_congestion`: read by the transfers, kept with them.
    mutating func readTrafficMarking(
        _ key: String,
        _ value: any TOMLValueConvertible,
        section: String,
        className: String
    ) {
        var marking = config.transfers.classTraffic[className] ?? .none
        if key == "dscp" {
            switch value.string?.uppercased() {
            case "LE": marking.lowerEffort = true
            case "DEFAULT", "CS0": marking.lowerEffort = false
            default:
                problem(
                    section: section,
                    key: key,
                    "expected \"LE\" (RFC 8622 lower effort) or \"default\""
                )
                return
            }
        } else {
            guard let name = value.string, TrafficMarking.isValidCongestionName(name) else {
                problem(
                    section: section,
                    key: key,
                    "expected a TCP congestion control name such as \"lp\" (lower-case letters, digits, _; at most 15)"
                )
                return
            }
            marking.congestion = name
            config.origins["\(section).\(key)"] = origin(section, key)
        }
        config.transfers.classTraffic[className] = marking
    }
}
