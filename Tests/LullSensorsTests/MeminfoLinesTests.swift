import LullKernelFiles
import LullSensors
import LullTestSupport
import Testing

/// `MeminfoLines` against the reading it replaced (the text split into lines and blank-separated
/// fields): the same values for this kernel's /proc/meminfo and for seeded lines of its format.
@Suite struct MeminfoLinesTests {
    /// The old reading: the first line of the name, its second field, times 1024 when the third is `kB`.
    private static func reference(_ name: String, in text: String) -> UInt64? {
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, fields[0] == name + ":" else { continue }
            guard let value = UInt64(fields[1]) else { return nil }
            guard fields.count >= 3, fields[2] == "kB" else { return value }
            let (bytes, overflowed) = value.multipliedReportingOverflow(by: 1024)
            return overflowed ? nil : bytes
        }
        return nil
    }

    @Test func everyLineOfThisKernelsMeminfoReadsAsBefore() throws {
        let text = try #require(KernelFile.read("/proc/meminfo"))
        let names = text.split(separator: "\n").compactMap { $0.split(separator: ":").first.map(String.init) }
        #expect(names.count > 20, "a real /proc/meminfo has dozens of lines")
        let values = MeminfoLines.values(of: names, in: text)
        for (name, value) in zip(names, values) {
            #expect(value != nil, "\(name) reads")
            #expect(value == Self.reference(name, in: text), "\(name)")
        }
        #expect(MeminfoLines.values(of: names, in: Array(text.utf8)) == values, "bytes read as the text does")
    }

    @Test func unitsMissingNamesAndBadNumbers() {
        let text = """
            MemTotal:       24576000 kB
            HugePages_Total:       3
            Odd:    7 pages
            NoColon 5 kB
            Dirty:5 kB
            Huge:   99999999999999999999 kB
            Big:    18014398509481984 kB
            Glued:  12kB
            Dirty:  6 kB
            """
        let names = ["MemTotal", "HugePages_Total", "Odd", "NoColon", "Dirty", "Huge", "Big", "Glued", "Absent"]
        #expect(
            MeminfoLines.values(of: names, in: text) == [
                24_576_000 * 1024, 3, 7, nil, 5 * 1024, nil, nil, nil, nil,
            ]
        )
        #expect(
            MemoryInfo.parse("MemTotal: 2 kB\nMemAvailable: 1 kB\n")
                == MemoryInfo(totalBytes: 2048, availableBytes: 1024)
        )
        #expect(MemoryInfo.parse("MemTotal: 2 kB\n") == nil)
    }

    @Test func seededLinesReadAsBefore() {
        var random = SeededGenerator(seed: 0x6D65_6D69_6E66_6F)
        let names = ["MemTotal", "MemAvailable", "Dirty", "Writeback", "Cached", "Active(anon)"]
        for _ in 0..<500 {
            var lines: [String] = []
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                let name = names.randomElement(using: &random)!
                let blanks = String(repeating: " ", count: Int.random(in: 1...9, using: &random))
                let number = String(
                    UInt64.random(in: 0...UInt64(1) << Int.random(in: 0...63, using: &random), using: &random)
                )
                let unit = ["", " kB", " pages"].randomElement(using: &random)!
                lines.append(name + ":" + blanks + number + unit)
            }
            let text = lines.joined(separator: "\n") + (Bool.random(using: &random) ? "\n" : "")
            let expected = names.map { Self.reference($0, in: text) }
            #expect(MeminfoLines.values(of: names, in: text) == expected, "\(text)")
        }
    }
}
