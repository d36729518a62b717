import Foundation
import LullAPI

/// `lullctl show`'s lines for what a run job asks: the command, its directory and variables,
/// its niceness and resource limits.
func runLines(_ job: JobView) -> [(String, String)] {
    if let unit = job.unit { return [("unit", unit)] }
    guard let argv = job.argv else { return [] }
    var lines = [("command", argv.map(List.shellQuoted).joined(separator: " "))]
    lines.append(("directory", job.workingDirectory ?? "(your home)"))
    for (name, value) in (job.environment ?? [:]).sorted(by: { $0.key < $1.key }) {
        lines.append(("environment", "\(name)=\(value)"))
    }
    if let codes = job.retryExitCodes {
        lines.append(("retried on exit", codes.map(String.init).joined(separator: ", ")))
    }
    if let grace = job.stopGraceSeconds { lines.append(("stop grace", String(format: "%g s", grace))) }
    if let nice = job.nice { lines.append(("nice", String(nice))) }
    if let weight = job.cpuWeight { lines.append(("cpu weight", String(weight))) }
    if let memory = job.memoryMax { lines.append(("memory max", "\(Format.bytes(memory)) (\(memory))")) }
    if let weight = job.ioWeight { lines.append(("io weight", String(weight))) }
    if let tasks = job.tasksMax { lines.append(("tasks max", String(tasks))) }
    return lines
}

/// `lullctl show`'s lines for how a run job's command ended.
func runResultLines(_ result: ResultView, id: Int64) -> [(String, String)] {
    var lines: [(String, String)] = []
    if let code = result.exitCode { lines.append(("exit status", String(code))) }
    if let signal = result.signal { lines.append(("killed by", "signal \(signal)")) }
    if let unit = result.unit { lines.append(("ran in", unit)) }
    if let cgroup = result.cgroup { lines.append(("ran in", "cgroup \(cgroup)")) }
    if let cpu = result.cpuSeconds { lines.append(("cpu", String(format: "%.3f s", cpu))) }
    if let memory = result.memoryPeakBytes {
        lines.append(("memory peak", "\(Format.bytes(memory)) (\(memory))"))
    }
    if let tail = result.outputTail, !tail.isEmpty {
        lines.append(("output", Format.excerpt(tail, limit: 1024)))
        lines.append(("all output", "lullctl logs \(id)"))
    }
    return lines
}
