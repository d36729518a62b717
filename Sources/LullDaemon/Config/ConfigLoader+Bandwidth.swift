import Foundation
import LullCore
import LullTransfer
import TOMLKit

// Bandwidth limits: `max_bytes_per_second` and `[[SECTION.bandwidth]]` windows.

extension ConfigLoader.Reader {
    /// `max_bytes_per_second` or the `[[SECTION.bandwidth]]` windows of `[limits]` or a class;
    /// a later file's windows replace an earlier one's.
    @discardableResult
    mutating func readBandwidth(
        _ value: any TOMLValueConvertible,
        _ section: String,
        _ key: String,
        into schedule: inout BandwidthSchedule
    ) -> Bool {
        guard key == "bandwidth" else {
            guard let rate = bandwidthRate(value, section, key) else { return false }
            schedule.bytesPerSecond = rate
            schedule.origin = origin(section, key)
            return true
        }
        let entries = value.array.map { $0.map(\.table) } ?? [nil]
        guard entries.allSatisfy({ $0 != nil }) else {
            problem(
                section: section,
                key: key,
                "expected [[\(section).bandwidth]] tables, each with window = \"HH:MM-HH:MM\" and max_bytes_per_second"
            )
            return false
        }
        let table = "\(section).bandwidth"
        var windows: [BandwidthSchedule.WindowRate] = []
        for (index, entry) in entries.compactMap({ $0 }).enumerated() {
            let which = "entry \(index + 1) of [[\(table)]]"
            for unknown in entry.keys.sorted() where !["window", "max_bytes_per_second"].contains(unknown) {
                problem(
                    section: table,
                    key: unknown,
                    occurrence: index,
                    "unknown key in \(which); known: max_bytes_per_second, window"
                )
            }
            let window = entry["window"]?.string.flatMap(Self.window)
            if window == nil {
                problem(
                    section: table,
                    key: "window",
                    occurrence: index,
                    "\(which): expected window = \"HH:MM-HH:MM\" in local time (00:00 to 23:59), e.g. \"08:00-18:00\""
                )
            }
            var rate: Int64?
            if let value = entry["max_bytes_per_second"] {
                rate = bandwidthRate(value, table, "max_bytes_per_second", occurrence: index, context: which + ": ")
            } else {
                problem(
                    section: table,
                    key: "max_bytes_per_second",
                    occurrence: index,
                    "\(which) has no max_bytes_per_second"
                )
            }
            if let window, let rate {
                windows.append(
                    .init(window: window, bytesPerSecond: rate, origin: origin(table, "window", occurrence: index))
                )
            }
        }
        guard windows.count == entries.count else { return false }
        schedule.windows = windows
        return true
    }

    mutating func bandwidthRate(
        _ value: any TOMLValueConvertible,
        _ section: String,
        _ key: String,
        occurrence: Int = 0,
        context: String = ""
    ) -> Int64? {
        let range = BandwidthSchedule.rateRange
        guard let number = value.int, range.contains(Int64(number)) else {
            problem(
                section: section,
                key: key,
                occurrence: occurrence,
                "\(context)expected an integer number of bytes per second from \(range.lowerBound) (1 KiB/s) to \(range.upperBound) (1 TiB/s)\(value.int.map { ", not \($0)" } ?? "")"
            )
            return nil
        }
        return Int64(number)
    }

    static func window(_ text: String) -> DailyWindow? {
        let parts = text.split(separator: "-").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 else { return nil }
        func minutes(_ clock: String) -> Int? {
            let pieces = clock.split(separator: ":")
            guard pieces.count == 2, let h = Int(pieces[0]), let m = Int(pieces[1]), (0..<24).contains(h),
                (0..<60).contains(m)
            else { return nil }
            return h * 60 + m
        }
        guard let start = minutes(parts[0]), let end = minutes(parts[1]) else { return nil }
        return DailyWindow(startMinute: start, endMinute: end)
    }
}
