import Foundation
import LullCore

/// Draws the watch board: a block of lines redrawn in place on a terminal, or one plain line per
/// change for a pipe or a file.
struct WatchRenderer {
    var unicode = Terminal.supportsUnicode

    /// One line per job plus a status line, each fitted to `width` columns, at most `height`
    /// lines in all. The block is redrawn by moving the cursor back up over it, which cannot go
    /// above the top of the window: a taller block would scroll a copy into the scrollback at
    /// every redraw. When the jobs do not fit, the running ones are chosen first, then the
    /// waiting ones, then those that ended; they are shown in the order given, and one line
    /// counts the rest.
    func lines(_ board: WatchBoard, width: Int, height: Int, now: Date) -> [String] {
        guard height >= 1 else { return [] }
        let status = TextLayout.fit(
            board.counts() + (board.allEnded ? "" : " · ctrl-c stops watching (the jobs go on)"),
            width
        )
        var shown = board.jobs
        if shown.count + 1 > height {
            let room = max(0, height - 2)
            let rank: (WatchedJob) -> Int = { job in
                switch job.state {
                case .running: 0
                case .queued, .paused: 1
                default: 2
                }
            }
            let chosen = Set(
                board.jobs.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }
                    .prefix(room).map(\.element.id)
            )
            shown = board.jobs.filter { chosen.contains($0.id) }
        }
        let idWidth = shown.map { String($0.id).count }.max() ?? 1
        var lines = shown.map { line(for: $0, idWidth: idWidth, width: width, now: now) }
        let hidden = board.jobs.count - shown.count
        if hidden > 0 && height >= 2 {
            // Never one: a board that does not fit gives up two rows for this line and the status.
            lines.append(TextLayout.fit("… \(hidden) more jobs not shown (a taller window shows them)", width))
        }
        lines.append(status)
        return lines
    }

    private func line(for job: WatchedJob, idWidth: Int, width: Int, now: Date) -> String {
        let id = String(repeating: " ", count: idWidth - String(job.id).count) + String(job.id)
        let state = TextLayout.pad(job.state.rawValue, 9)
        var text = "\(id)  \(state)  "
        if job.state == .running && job.runsCommand {
            text += Format.cpuColumn(job.usage) + "  "
        } else if job.state == .running || (job.state == .succeeded && job.fraction != nil) {
            let barWidth = max(10, min(30, width / 4))
            let percent = Format.percentColumn(job.fraction)
            text += "[" + ProgressBar(width: barWidth, unicode: unicode).render(job.fraction) + "] \(percent)  "
        }
        text += job.detail(now: now)
        let room = width - TextLayout.columns(text) - 2
        if room >= 12 { text += "  " + TextLayout.fitTail(job.target, min(room, 60)) }
        return TextLayout.fit(text, width)
    }

    /// The plain line for a job that changed, or nil when nothing worth a line happened:
    /// state changes always print, progress once per tenth of the transfer.
    func plainLine(for job: WatchedJob, stateChanged: Bool, now: Date) -> (line: String, step: Int)? {
        let step = job.fraction.map { Int($0 * 10) } ?? job.printedStep
        guard stateChanged || (job.state == .running && step > job.printedStep) else { return nil }
        var line = "\(Format.clock(now, now: now))  job \(job.id)  \(job.state.rawValue)"
        if job.state == .running, let fraction = job.fraction { line += String(format: "  %.0f%%", fraction * 100) }
        if job.state == .running, job.runsCommand, let cpu = job.usage?.cpuPercent {
            line += String(format: "  CPU %.0f%%", cpu)
        }
        // The detail quotes the job's error, whose message can quote the job's own text.
        line += "  " + TextLayout.printable(job.detail(now: now))
        return (line, step)
    }
}
