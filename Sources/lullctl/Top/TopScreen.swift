import Foundation
import LullAPI

/// Lays out one frame of `top` as plain lines that fit the window: the daemon, the machine's
/// world with CPU and memory sparklines, running jobs, the queue by class, recent failures.
struct TopScreen {
    var size: Terminal.Size
    var unicode = Terminal.supportsUnicode

    private var width: Int { max(1, size.columns) }

    func lines(_ snapshot: TopSnapshot?, problem: String?) -> [String] {
        var lines: [String] = []
        guard let snapshot else {
            lines.append("lullctl top: " + (problem ?? "reading the daemon…"))
            return finished(lines)
        }
        lines.append(header(snapshot))
        if let problem { lines.append("! " + problem) }
        lines.append("")
        lines += world(snapshot)
        lines.append("")
        lines += running(snapshot)
        lines.append("")
        lines += queue(snapshot)
        lines.append("")
        lines += failures(snapshot)
        return finished(lines)
    }

    /// Cuts every line to the width and the frame to the height (keeping the last line for a hint).
    private func finished(_ lines: [String]) -> [String] {
        var fitted = lines.map { TextLayout.fit($0, width) }
        if fitted.count > size.rows {
            fitted =
                Array(fitted.prefix(max(1, size.rows - 1))) + [TextLayout.fit("… (a taller window shows more)", width)]
        }
        return fitted
    }

    private func header(_ snapshot: TopSnapshot) -> String {
        let status = snapshot.status
        let left =
            "lulld \(status.version) · pid \(status.pid) · up \(Format.duration(status.uptimeSeconds)) · "
            + "\(status.running) running of \(status.limits.maxConcurrent) slots · \(status.jobs["queued"] ?? 0) queued · "
            + Format.clock(snapshot.takenAt)
        let right = "q quits"
        let room = width - right.count - 1
        return TextLayout.pad(left, room) + " " + right
    }

    private func world(_ snapshot: TopSnapshot) -> [String] {
        var lines: [String] = []
        if let world = snapshot.status.world {
            var power =
                world.power.onBattery
                ? "on battery" + (world.power.batteryPercent.map { String(format: ", %.0f%%", $0) } ?? "")
                : "on AC power" + (world.power.batteryPercent.map { String(format: ", battery %.0f%%", $0) } ?? "")
            if world.power.lowPower { power += ", low-power mode" }
            lines.append(row("power", "\(power)  (\(world.power.source))"))
            var network = world.network.connectivity
            if let interface = world.network.interface { network += " via \(interface)" }
            network += world.network.metered ? ", metered" : ", not metered"
            if world.network.cellular { network += ", cellular" }
            lines.append(row("network", "\(network)  (\(world.network.source))"))
            let pressure = [("cpu", world.pressure.cpu), ("memory", world.pressure.memory), ("io", world.pressure.io)]
                .compactMap { name, value in value.map { String(format: "%@ %.0f%%", name, $0) } }
            lines.append(
                row(
                    "pressure",
                    pressure.isEmpty
                        ? "not sampled (\(world.pressure.source))"
                        : pressure.joined(separator: " · ") + "  (\(world.pressure.source))"
                )
            )
        } else {
            lines.append(row("world", "this lulld does not report power and network in its status"))
        }
        let chartWidth = max(10, min(60, width - 40))
        let sparkline = Sparkline(unicode: unicode)
        if let samples = snapshot.samples, !samples.isEmpty {
            let cpu = samples.map(\.cpuUtilisation)
            let memory = samples.map(Self.memoryUsed)
            var cpuText = sparkline.render(cpu, width: chartWidth)
            if let last = cpu.last ?? nil { cpuText += String(format: " %3.0f%%", last * 100) }
            if let load = samples.last?.load1m { cpuText += String(format: "  load %.2f", load) }
            lines.append(row("cpu", cpuText))
            var memoryText = sparkline.render(memory, width: chartWidth)
            if let last = memory.last ?? nil { memoryText += String(format: " %3.0f%%", last * 100) }
            if let total = samples.last?.memoryTotalBytes { memoryText += " of " + Format.bytes(total) }
            lines.append(row("memory", memoryText))
        } else {
            lines.append(row("cpu", snapshot.samples == nil ? "no sample history from this lulld" : "sampling…"))
        }
        let process = snapshot.status.process
        lines.append(
            row(
                "lulld",
                "\(Format.bytes(process.rssBytes)) resident, \(String(format: "%.2f", process.cpuSeconds)) s CPU"
            )
        )
        return lines
    }

    /// Share of memory in use (0–1).
    private static func memoryUsed(_ sample: SampleView) -> Double? {
        guard let available = sample.memoryAvailableBytes, let total = sample.memoryTotalBytes, total > 0 else {
            return nil
        }
        return 1 - Double(available) / Double(total)
    }

    private func row(_ name: String, _ value: String) -> String {
        TextLayout.pad(name, 10) + value
    }

    private func running(_ snapshot: TopSnapshot) -> [String] {
        var lines = ["RUNNING (\(snapshot.running.count))"]
        if snapshot.running.isEmpty { lines.append("  nothing is running") }
        let idWidth = snapshot.running.map { String($0.id).count }.max() ?? 1
        let barWidth = max(10, min(24, width / 6))
        for job in snapshot.running {
            let watched = WatchedJob(job)
            let id = String(repeating: " ", count: idWidth - String(job.id).count) + String(job.id)
            var line = "  \(id)  \(TextLayout.pad(job.jobClass, 11)) "
            if watched.runsCommand {
                // A command's CPU share where a transfer has its bar, padded to the bar's columns.
                line += TextLayout.pad(Format.cpuColumn(watched.usage), barWidth + 7) + "  "
            } else {
                let bar = ProgressBar(width: barWidth, unicode: unicode).render(watched.fraction)
                line += "[\(bar)] \(Format.percentColumn(watched.fraction))  "
            }
            line += watched.detail(now: snapshot.takenAt)
            let room = width - TextLayout.columns(line) - 2
            if room >= 12 { line += "  " + TextLayout.fitTail(Format.target(job), room) }
            lines.append(line)
        }
        return lines
    }

    private func queue(_ snapshot: TopSnapshot) -> [String] {
        let summary = QueueSummary(snapshot.queued)
        let total = snapshot.status.jobs["queued"] ?? snapshot.queued.count
        var lines = ["QUEUE (\(total) queued, \(summary.held) held)"]
        if summary.classes.isEmpty { lines.append("  the queue is empty") }
        let nameWidth = max(11, summary.classes.map { TextLayout.columns($0.jobClass) }.max() ?? 0)
        for line in summary.classes {
            var text = "  \(TextLayout.pad(line.jobClass, nameWidth))  \(line.queued) queued, \(line.held) held"
            // The count first: a long reason is cut at the window's edge, and the count with it.
            if let first = line.reasons.first {
                text += ": " + (first.count > 1 ? "\(first.count)× " : "") + first.text
            }
            lines.append(text)
            for reason in line.reasons.dropFirst() {
                lines.append(
                    String(repeating: " ", count: nameWidth + 4) + "also: "
                        + (reason.count > 1 ? "\(reason.count)× " : "") + reason.text
                )
            }
        }
        if total > snapshot.queued.count {
            lines.append("  (reasons counted over the first \(snapshot.queued.count) queued jobs)")
        }
        return lines
    }

    private func failures(_ snapshot: TopSnapshot) -> [String] {
        var lines = ["RECENT FAILURES"]
        let failed = snapshot.status.jobs["failed"] ?? 0
        if failed == 0 { lines.append("  none") }
        for job in snapshot.failures {
            let error = job.error.map { "\($0.code): \($0.message)" } ?? "failed"
            lines.append("  \(job.id)  \(Format.time(job.updatedAt, now: snapshot.takenAt))  \(error)  \(job.url)")
        }
        // The search for recent failures stops after a while (`TopSnapshot.recentFailures`).
        if snapshot.failures.count < min(TopSnapshot.failuresShown, failed) {
            lines.append("  (\(failed) failed in all, the others longer ago; lullctl list --state failed lists them)")
        }
        return lines
    }
}
