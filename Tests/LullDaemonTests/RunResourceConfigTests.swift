import Foundation
import LullCore
import LullTransfer
import Testing

@testable import LullDaemon

/// `[run] host` and a class's run defaults (`nice`, `cpu_weight`, `memory_max`, `io_weight`,
/// `tasks_max`): what they set, how a bad value is refused, and the warning where lulld starts
/// commands itself and cannot enforce the four limits.
@Suite struct RunResourceConfigTests {
    @Test func theHostIsProcessUntilOneIsChosen() throws {
        let defaults = try ConfigLoader.parse("", file: "t.toml")
        #expect(defaults.run.configuredHost == .auto && defaults.run.host == .process)
        let systemd = try ConfigLoader.parse("[run]\nhost = \"systemd\"\n", file: "t.toml")
        #expect(systemd.run.configuredHost == .systemd && systemd.run.host == .systemd)
        let process = try ConfigLoader.parse("[run]\nhost = \"process\"\n", file: "t.toml")
        #expect(process.run.host == .process)
        #expect(
            ConfigLoader.refusal("[run]\nhost = \"docker\"\n")?.contains(
                "t.toml:2: run.host: expected \"auto\", \"systemd\" or \"process\""
            ) == true
        )
        let misspelt = ConfigLoader.refusal("[run]\nhots = \"auto\"\n")
        #expect(misspelt?.contains("known: cgroup, host, max_log_bytes") == true)
        #expect(
            ConfigLoader.refusal("[run]\ncgroup = \"on\"\n")?.contains("run.cgroup: expected \"auto\" or \"off\"")
                == true
        )
    }

    @Test func aClassSetsItsRunJobsDefaults() throws {
        let config = try ConfigLoader.parse(
            """
            [classes.background]
            nice = 10
            cpu_weight = 20
            memory_max = 2147483648
            io_weight = 10
            tasks_max = 256
            """,
            file: "t.toml"
        )
        #expect(
            config.run.defaults(of: "background")
                == RunClassDefaults(
                    nice: 10,
                    resources: RunResources(cpuWeight: 20, memoryMax: 2 << 30, ioWeight: 10, tasksMax: 256)
                )
        )
        #expect(config.run.defaults(of: "default") == RunClassDefaults())
        #expect(config.runSettings.classDefaults == config.run.classDefaults)
        #expect(config.origins["classes.background.memory_max"]?.line == 4)
    }

    @Test func aBadClassValueIsRefusedNamingTheKeyAndItsLimit() {
        let cases = [
            ("nice = 20", "classes.bulk.nice: 20 is out of range -20...19"),
            ("cpu_weight = 0", "classes.bulk.cpu_weight: cpu_weight is 0; give a weight from 1 to 10000"),
            ("io_weight = 10001", "classes.bulk.io_weight: io_weight is 10001; give a weight from 1 to 10000"),
            ("memory_max = 4096", "classes.bulk.memory_max: memory_max is 4096; give at least 1048576 bytes (1 MiB)"),
            ("memory_max = \"2G\"", "classes.bulk.memory_max: expected an integer"),
            ("tasks_max = 0", "classes.bulk.tasks_max: tasks_max is 0; give a count from 1 to 4194304"),
        ]
        for (line, words) in cases {
            let refusal = ConfigLoader.refusal("[classes.bulk]\n\(line)\n")
            #expect(refusal?.contains(words) == true, "\(line): \(refusal ?? "accepted")")
        }
        #expect(
            ConfigLoader.refusal("[classes.bulk]\nmemory_maxx = 1\n")?.contains("memory_max") == true,
            "known keys listed"
        )
    }

    @Test func limitsAClassSetsAreWarnedAboutWhereLulldStartsCommandsItself() throws {
        let text = """
            [classes.bulk]
            nice = 5
            memory_max = 1073741824
            tasks_max = 64
            """
        let process = try ConfigLoader.parse(text, file: "t.toml")
        let warnings = RunResourceCheck.warnings(for: process).map(\.description)
        #expect(
            warnings == [
                "t.toml:3: classes.bulk.memory_max: warning: memory_max does not apply: this lulld starts commands itself, where only nice applies; it takes effect with [run] host = \"systemd\" (commands as systemd units)",
                "t.toml:4: classes.bulk.tasks_max: warning: tasks_max does not apply: this lulld starts commands itself, where only nice applies; it takes effect with [run] host = \"systemd\" (commands as systemd units)",
            ]
        )
        let systemd = try ConfigLoader.parse("[run]\nhost = \"systemd\"\n" + text, file: "t.toml")
        #expect(RunResourceCheck.warnings(for: systemd).isEmpty)
        #expect(RunResourceCheck.warnings(for: systemd, host: .process).count == 2, "a reload keeps the running host")
        // --check-config says it too.
        #expect(ConfigCheck(config: "t.toml", instance: nil, environment: [:]).warnings(for: process).count == 2)
    }

    @Test func theValidatorRefusesLimitsOnlyWhereCommandsAreNotUnits() throws {
        let manager = HookManager(.auto)
        let process = try ConfigLoader.parse("", file: "t.toml")
        #expect(
            !ConfigReloader.validator(for: process, manager: manager, privateDirectories: .init()).runsCommandsAsUnits
        )
        let systemd = try ConfigLoader.parse("[run]\nhost = \"systemd\"\n", file: "t.toml")
        #expect(
            ConfigReloader.validator(for: systemd, manager: manager, privateDirectories: .init()).runsCommandsAsUnits
        )
        #expect(ControlRouter.status(of: .notEnforceable) == .unprocessableEntity)
    }
}
