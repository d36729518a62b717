import LullKernelFiles
import LullSensors
import LullTestSupport
import Testing

/// `MeminfoLines` against `MemoryInfo.parse` as it was before it (kept here verbatim as the
/// oracle) for this kernel's /proc/meminfo and for seeded texts in the kernel's format, and the
/// cases where it differs on purpose.
@Suite struct MeminfoLinesTests {
    /// `MemoryInfo.parse` before `MeminfoLines`.
    private static func oldMemoryInfo(_ text: String) -> MemoryInfo? {
        var total: UInt64? = nil
        var available: UInt64? = nil
        for line in text.split(whereSeparator: \.isNewline) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let value = UInt64(fields[1]) else { continue }
            let bytes = fields.count >= 3 && fields[2] == "kB" ? value * 1024 : value
            switch fields[0] {
            case "MemTotal:": total = bytes
            case "MemAvailable:": available = bytes
            default: break
            }
        }
        guard let total, let available else { return nil }
        return MemoryInfo(totalBytes: total, availableBytes: available)
    }

    /// The old parse's rule for one line, for a text whose names are all different.
    private static func oldLineValue(_ name: String, in text: String) -> UInt64? {
        for line in text.split(whereSeparator: \.isNewline) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, fields[0] == name + ":", let value = UInt64(fields[1]) else { continue }
            return fields.count >= 3 && fields[2] == "kB" ? value * 1024 : value
        }
        return nil
    }

    @Test func everyLineOfThisKernelsMeminfoReadsAsBefore() throws {
        let text = try #require(KernelFile.read("/proc/meminfo"))
        let names = text.split(separator: "\n").compactMap { $0.split(separator: ":").first.map(String.init) }
        #expect(names.count > 20, "a real /proc/meminfo has dozens of lines")
        #expect(Set(names).count == names.count)
        let values = MeminfoLines.values(of: names, in: text)
        for (name, value) in zip(names, values) {
            #expect(value != nil, "\(name) reads")
            #expect(value == Self.oldLineValue(name, in: text), "\(name)")
        }
        #expect(MeminfoLines.values(of: names, in: Array(text.utf8)) == values, "bytes read as the text does")
        #expect(MemoryInfo.parse(text) == Self.oldMemoryInfo(text))
    }

    @Test func seededKernelTextsReadAsBefore() {
        var random = SeededGenerator(seed: 0x6D65_6D69_6E66_6F)
        let names = ["MemTotal", "MemFree", "MemAvailable", "Cached", "Dirty", "Writeback", "HugePages_Total"]
        for _ in 0..<500 {
            let lines = names.shuffled(using: &random).prefix(Int.random(in: 0...names.count, using: &random)).map {
                name in
                let number = UInt64.random(in: 0...UInt64(1) << Int.random(in: 0...40, using: &random), using: &random)
                let blanks = String(repeating: " ", count: Int.random(in: 1...12, using: &random))
                return name + ":" + blanks + String(number) + (name.hasPrefix("HugePages") ? "" : " kB")
            }
            let text = lines.joined(separator: "\n") + (Bool.random(using: &random) ? "\n" : "")
            #expect(MemoryInfo.parse(text) == Self.oldMemoryInfo(text), "\(text)")
            #expect(
                MeminfoLines.values(of: names, in: text) == names.map { Self.oldLineValue($0, in: text) },
                "\(text)"
            )
        }
    }

    /// Where it reads differently from the old parse, on purpose.
    @Test func firstLinesOverflowsAndBlanks() {
        let text = """
            MemTotal:       24576000 kB
            HugePages_Total:       3
            Odd:    7 pages
            NoColon 5 kB
            Dirty:5 kB
            Huge:   99999999999999999999 kB
            Big:    18014398509481984 kB
            Glued:  12kB
            Tabbed:\t9\tkB
            Trailing:  4 kB \r
            Dirty:  6 kB
            """
        let names = [
            "MemTotal", "HugePages_Total", "Odd", "NoColon", "Dirty", "Huge", "Big", "Glued", "Tabbed", "Trailing",
            "Absent",
        ]
        let kibibyte: UInt64 = 1024
        let expected: [UInt64?] = [
            24_576_000 * kibibyte, 3, 7, nil, 5 * kibibyte, nil, nil, nil, 9 * kibibyte, 4 * kibibyte, nil,
        ]
        // The first line of a name counts; an overflow is no value, not a crash; blanks and a
        // CR may stand around the unit.
        #expect(MeminfoLines.values(of: names, in: text) == expected)
        #expect(MeminfoLines.values(of: ["A"], in: "A: 1 kB\nA: 2 kB\n") == [1024], "the old parse took the last")
        #expect(
            MemoryInfo.parse("MemTotal: 2 kB\r\nMemAvailable: 1 kB\r\n")
                == MemoryInfo(totalBytes: 2048, availableBytes: 1024)
        )
        #expect(MemoryInfo.parse("MemTotal: 2 kB\n") == nil)
    }
}
