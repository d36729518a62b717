import Foundation
import LullAPI

/// Human forms of sizes and times; `--json` keeps the raw values.
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

    /// "3m ago" / "in 2h", for a moment relative to now.
    static func relative(_ date: Date, now: Date = Date()) -> String {
        let seconds = Int(now.timeIntervalSince(date).rounded())
        let magnitude = abs(seconds)
        let text: String
        switch magnitude {
        case ..<60: text = "\(magnitude)s"
        case ..<3600: text = "\(magnitude / 60)m"
        case ..<86400: text = "\(magnitude / 3600)h"
        default: text = "\(magnitude / 86400)d"
        }
        return seconds >= 0 ? "\(text) ago" : "in \(text)"
    }

    /// Absolute local time plus the relative form.
    static func time(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return "\(formatter.string(from: date)) (\(relative(date)))"
    }

    static func progress(_ job: JobView) -> String {
        guard let progress = job.progress else { return "-" }
        if let total = progress.bytesTotal, total > 0 {
            let percent = Double(progress.bytesDone) / Double(total) * 100
            return String(format: "%.0f%% of %@", percent, bytes(total))
        }
        return bytes(progress.bytesDone)
    }

    /// What the job works on: the destination of a fetch, the source of an upload, else the URL.
    static func target(_ job: JobView) -> String {
        job.destination ?? job.source ?? job.url
    }
}
