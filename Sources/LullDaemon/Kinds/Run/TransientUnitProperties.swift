import Foundation
import LullSensors
import LullTransfer

/// The properties of a run job's transient unit (`a(sv)` of `StartTransientUnit`).
enum TransientUnitProperties {
    static func of(_ service: TransientService) -> [DBusValue] {
        let launch = service.launch
        var properties: [(String, DBusValue)] = [
            ("Description", .string(service.description)),
            ("Slice", .string(TransientService.slice)),
            // Started once its program is executed: a program that cannot be fails the start.
            ("Type", .string("exec")),
            (
                "ExecStart",
                .array([
                    .structure([.string(launch.path), .array(launch.argv.map { .string(literal($0)) }), .bool(false)])
                ])
            ),
            ("WorkingDirectory", .string(launch.directory)),
            ("StandardInput", .string("null")),
            ("StandardOutputFileDescriptor", .unixFileDescriptor(launch.outputDescriptor)),
            ("StandardErrorFileDescriptor", .unixFileDescriptor(launch.outputDescriptor)),
            // A stop: SIGTERM to every process of the unit, SIGKILL after the grace.
            ("KillMode", .string("control-group")),
            ("TimeoutStopUSec", .uint64(microseconds(service.stopGraceSeconds))),
            ("CPUAccounting", .bool(true)),
            ("MemoryAccounting", .bool(true)),
            ("IOAccounting", .bool(true)),
            ("TasksAccounting", .bool(true)),
            // Loaded, with its figures, after it ends, until lulld lets go (or its bus goes).
            ("AddRef", .bool(true)),
            ("CollectMode", .string("inactive-or-failed")),
        ]
        if !launch.environment.isEmpty {
            properties.append(("Environment", .array(launch.environment.map { .string($0) })))
        }
        if let user = service.user { properties.append(("User", .string(String(user)))) }
        if let nice = launch.nice { properties.append(("Nice", .int32(nice))) }
        let resources = launch.resources
        if let weight = resources.cpuWeight { properties.append(("CPUWeight", .uint64(UInt64(weight)))) }
        if let memory = resources.memoryMax { properties.append(("MemoryMax", .uint64(UInt64(memory)))) }
        if let weight = resources.ioWeight { properties.append(("IOWeight", .uint64(UInt64(weight)))) }
        if let tasks = resources.tasksMax { properties.append(("TasksMax", .uint64(UInt64(tasks)))) }
        return properties.map { name, value in .structure([.string(name), .variant(.init(value))]) }
    }

    /// A word as the command receives it: systemd expands `$NAME` and `${NAME}` in `ExecStart`'s
    /// words (and splits a word that is one `$NAME` at its spaces), where `$$` stands for `$`.
    static func literal(_ word: String) -> String {
        word.contains("$") ? word.replacingOccurrences(of: "$", with: "$$") : word
    }

    private static func microseconds(_ seconds: Double) -> UInt64 {
        UInt64(max(0, min(seconds, 1e12)) * 1e6)
    }
}
