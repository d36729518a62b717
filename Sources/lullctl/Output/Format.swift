import Foundation
import LullAPI
import LullCore

/// Human forms of sizes, rates and times; `--json` keeps the raw values.
enum Format {
    static func bytes(_ count: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }

    /// A waiting reason for people: the rule, and its time said once, in local time and from
    /// now (the API's `text` gives times in UTC for programs).
    static func reason(_ reason: WaitingReasonView, now: Date = Date()) -> String {
        var text = reason.text
        if let cut = text.range(of: "; looked at again at ") { text = String(text[..<cut.lowerBound]) }
        guard let until = reason.until else { return text }
        let utc = until.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(secondsFromGMT: 0)!))
        if text.contains(utc) { return text.replacingOccurrences(of: utc, with: time(until, now: now)) }
        return text + "; until " + time(until, now: now)
    }

    /// The start of a long text (a server's answer), cut at a character, saying how much there is.
    /// "stopped 3 times: on battery" (the latest reason); nil for a job never stopped.
    static func stops(_ job: JobView) -> String? {
        guard let stops = job.stops, stops > 0 else { return nil }
        let reason = job.lastStopReason.map { ": " + $0.rawValue.replacingOccurrences(of: "_", with: " ") } ?? ""
        return
            "stopped \(stops == 1 ? "once" : "\(stops) times")\(reason) (conditions lapsed while it ran; not failures)"
    }

    static func excerpt(_ text: String, limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var cut = text.utf8.index(text.utf8.startIndex, offsetBy: limit)
        while cut > text.startIndex, String.Index(cut, within: text) == nil { cut = text.utf8.index(before: cut) }
        return String(text[..<cut]) + "… (\(text.utf8.count) bytes in all; lullctl show --json has all of it)"
    }

    static func rate(_ bytesPerSecond: Double) -> String {
        bytes(Int64(bytesPerSecond.rounded())) + "/s"
    }

    /// A span of time in the largest units that matter: "45 s", "3 min", "2 h 5 min", "3 d".
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        switch total {
        case ..<60: return "\(total) s"
        case ..<3600:
            let (minutes, rest) = total.quotientAndRemainder(dividingBy: 60)
            return minutes < 10 && rest > 0 ? "\(minutes) min \(rest) s" : "\(minutes) min"
        case ..<86400:
            let (hours, minutes) = (total / 3600, total % 3600 / 60)
            return minutes > 0 ? "\(hours) h \(minutes) min" : "\(hours) h"
        default: return "\(total / 86400) d"
        }
    }

    /// "1 h (flex 10 min, jitter 2 min, at most 4 h)": a periodic job's schedule.
    static func schedule(_ periodic: PeriodicSchedule) -> String {
        var details: [String] = []
        if periodic.flex > 0 { details.append("flex \(duration(periodic.flex))") }
        if periodic.jitter > 0 { details.append("jitter \(duration(periodic.jitter))") }
        if let maxEvery = periodic.maxEvery { details.append("at most \(duration(maxEvery))") }
        return duration(periodic.every) + (details.isEmpty ? "" : " (" + details.joined(separator: ", ") + ")")
    }

    /// "at most 5 attempts, backoff 10 s doubling, at most 1 h": only what the job set.
    static func retry(_ retry: RetrySettings) -> String {
        var parts: [String] = []
        if let attempts = retry.maxAttempts { parts.append("at most \(attempts) attempt\(attempts == 1 ? "" : "s")") }
        if let base = retry.baseSeconds { parts.append("backoff \(duration(base)) doubling") }
        if let cap = retry.capSeconds { parts.append("waits at most \(duration(cap))") }
        return parts.joined(separator: ", ")
    }

    /// "idle 30 s, total 2 h": only what the job set.
    static func timeouts(_ timeouts: TimeoutSettings) -> String {
        var parts: [String] = []
        if let idle = timeouts.idleSeconds { parts.append("idle \(duration(idle))") }
        if let total = timeouts.totalSeconds { parts.append("total \(duration(total))") }
        if let connect = timeouts.connectSeconds { parts.append("connect \(duration(connect))") }
        return parts.joined(separator: ", ")
    }

    /// "3 min ago" / "in 2 h", for a moment relative to now.
    static func relative(_ date: Date, now: Date = Date()) -> String {
        let seconds = now.timeIntervalSince(date)
        if abs(seconds) < 1 { return "now" }
        let text = duration(abs(seconds))
        return seconds > 0 ? "\(text) ago" : "in \(text)"
    }

    /// Relative and absolute local time: "in 3 min (09:12:00)", with the date when it is not today.
    static func time(_ date: Date, now: Date = Date()) -> String {
        "\(relative(date, now: now)) (\(clock(date, now: now)))"
    }

    /// Local wall-clock time, with the date when it is not today.
    static func clock(_ date: Date, now: Date = Date()) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = Calendar.current.isDate(date, inSameDayAs: now) ? "HH:mm:ss" : "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }

    static func progress(_ job: JobView) -> String {
        guard let progress = job.progress else { return "-" }
        if let fraction = progress.fraction, let total = progress.bytesTotal {
            return String(format: "%.0f%% of %@", fraction * 100, bytes(total))
        }
        return bytes(progress.bytesDone)
    }

    /// " 33%", four columns wide beside a progress bar; "   ?" when the size is unknown.
    static func percentColumn(_ fraction: Double?) -> String {
        fraction.map { String(format: "%3.0f%%", $0 * 100) } ?? "   ?"
    }

    /// "1.2 MiB of 4.0 MiB, 800.0 KiB/s, 4 s left": what a running transfer is doing.
    static func transfer(_ progress: ProgressView) -> String {
        var text = bytes(progress.bytesDone) + (progress.bytesTotal.map { " of \(bytes($0))" } ?? "")
        if let rate = progress.bytesPerSecond, rate > 0 { text += ", \(self.rate(rate))" }
        if let eta = progress.etaSeconds { text += ", \(duration(eta)) left" }
        return text
    }

    /// "CPU  98%": where a transfer has its bar and percentage, a running command has its CPU
    /// share (of one CPU; a command on several may pass 100 %), eight columns wide.
    static func cpuColumn(_ usage: UsageView?) -> String {
        "CPU " + (usage?.cpuPercent.map { String(format: "%3.0f%%", $0) } ?? "   ?")
    }

    /// "12.0 MiB memory, 3.4 s CPU in all, 8.0 MiB written": what a running command uses.
    static func usage(_ usage: UsageView) -> String {
        var text = bytes(usage.memoryBytes) + " memory, " + String(format: "%.1f s CPU in all", usage.cpuSeconds)
        if let read = usage.ioReadBytes, read > 0 { text += ", \(bytes(read)) read" }
        if let written = usage.ioWriteBytes, written > 0 { text += ", \(bytes(written)) written" }
        return text
    }

    /// What the job works on: the destination of a fetch, the source of an upload, a run job's
    /// command, else the URL.
    static func target(_ job: JobView) -> String {
        // A job whose stored row no longer decodes is shown without any of its own fields.
        if job.error?.code == "unreadable_job" { return "(its stored row cannot be read: lullctl show \(job.id))" }
        return job.destination ?? job.source ?? (job.url.isEmpty ? job.argv?.joined(separator: " ") : nil) ?? job.url
    }
}
