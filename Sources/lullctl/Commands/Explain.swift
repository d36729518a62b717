import ArgumentParser
import Foundation
import LullAPI
import LullClient

struct Explain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Say in plain words why a job is or is not running, citing the rule that holds it."
    )

    @Argument(help: "The job id.")
    var id: Int64

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var format: OutputOptions

    func run() async throws {
        let explanation = try await connection.withClient { try await $0.explain(id) }
        if format.json {
            try printJSON(explanation)
            return
        }
        var lines = ["job \(explanation.jobId): \(explanation.state.rawValue)"]
        if explanation.reasons.isEmpty {
            lines.append("  " + explanation.summary)
        } else {
            lines.append("  waiting for:")
            for reason in explanation.reasons {
                lines.append("  - " + Format.reason(reason))
            }
        }
        if let next = explanation.nextCheck {
            lines.append("  looked at again: \(Format.time(next)), or as soon as something changes")
        } else if explanation.state == .queued {
            lines.append("  looked at again: when power, network, idleness or pressure change, or a job ends")
        }
        if let stops = explanation.stops, stops > 0 {
            let reason = explanation.lastStopReason.map { ": " + $0.rawValue.replacingOccurrences(of: "_", with: " ") }
            lines.append(
                "  stopped \(stops == 1 ? "once" : "\(stops) times")\(reason ?? "") while running; stops are not failures"
            )
        }
        lines.append("  world: \(describe(explanation.world))")
        // The summary quotes the job's error, whose message can quote the job's own text.
        print(lines.map(TextLayout.printable).joined(separator: "\n"))
    }
}

/// One line about the machine as the scheduler sees it.
func describe(_ world: WorldView) -> String {
    let power =
        world.power.onBattery
        ? "on battery" + (world.power.batteryPercent.map { String(format: " %.0f%%", $0) } ?? "")
        : "on AC"
    var network = world.network.connectivity
    if world.network.metered { network += ", metered" }
    if world.network.cellular { network += ", cellular" }
    if let interface = world.network.interface { network += " via \(interface)" }
    var pressure = ""
    if let cpu = world.pressure.cpu { pressure += String(format: ", cpu pressure %.0f%%", cpu) }
    if let memory = world.pressure.memory { pressure += String(format: ", memory pressure %.0f%%", memory) }
    var idle = ""
    if let state = world.idle {
        switch state.state {
        case "idle": idle = "; idle" + (state.since.map { " since \(Format.time($0))" } ?? "")
        case "active": idle = "; user active"
        default: idle = "; idle unknown"
        }
        idle += " (\(state.source))"
    }
    return "\(power) (\(world.power.source)); network \(network) (\(world.network.source))\(pressure)\(idle)"
}

struct Simulate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Evaluate the queue against a hypothetical world and say what would run and what would wait.",
        discussion: "Nothing changes: no job starts or stops. Conditions you leave out keep their current value."
    )

    @Flag(name: .customLong("on-battery"), help: "Pretend the machine runs on battery.") var onBattery = false
    @Flag(name: .customLong("on-ac"), help: "Pretend the machine is plugged in.") var onAC = false
    @Option(name: .long, help: "Battery charge in percent.") var battery: Double?
    @Flag(name: .long, help: "Pretend the link is metered.") var metered = false
    @Flag(name: .long, help: "Pretend the link is cellular.") var cellular = false
    @Flag(name: .long, help: "Pretend the machine is offline.") var offline = false
    @Option(name: .customLong("cpu-pressure"), help: "CPU pressure (PSI some avg10, percent).") var cpuPressure: Double?
    @Option(name: .customLong("memory-pressure"), help: "Memory pressure (percent).") var memoryPressure: Double?
    @Flag(name: .customLong("idle"), help: "Pretend nobody has used the machine for long.") var idle = false
    @Flag(name: .customLong("user-active"), help: "Pretend someone uses the machine.") var userActive = false

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var format: OutputOptions

    func validate() throws {
        if onBattery && onAC { throw ValidationError("give --on-battery or --on-ac, not both") }
        if idle && userActive { throw ValidationError("give --idle or --user-active, not both") }
    }

    func run() async throws {
        let hypothesis = SimulateRequest(
            onBattery: onBattery ? true : (onAC ? false : nil),
            battery: battery,
            metered: metered ? true : nil,
            cellular: cellular ? true : nil,
            offline: offline ? true : nil,
            cpuPressure: cpuPressure,
            memoryPressure: memoryPressure,
            idle: idle ? true : (userActive ? false : nil)
        )
        let simulation = try await connection.withClient { try await $0.simulate(hypothesis) }
        if format.json {
            try printJSON(simulation)
            return
        }
        print("in that world: \(describe(simulation.world))")
        print(
            simulation.wouldStart.isEmpty
                ? "would start: nothing"
                : "would start: " + simulation.wouldStart.map { "job \($0)" }.joined(separator: ", ")
        )
        if simulation.waiting.isEmpty {
            print("would wait: nothing")
        } else {
            print("would wait (\(simulation.waitingCount)):")
            for entry in simulation.waiting {
                print(
                    "  job \(entry.jobId): " + TextLayout.printable(entry.reasons.map(\.text).joined(separator: "; "))
                )
            }
            if simulation.waitingCount > simulation.waiting.count {
                print("  … and \(simulation.waitingCount - simulation.waiting.count) more")
            }
        }
    }
}
