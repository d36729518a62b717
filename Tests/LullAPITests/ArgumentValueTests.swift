import Foundation
import LullClient
import LullCore
import Testing

/// The values lullctl's scheduling flags take, as a person types them.
@Suite struct ArgumentValueTests {
    /// 2026-11-21T18:00:00Z.
    static let evening = Date(timeIntervalSince1970: 1_795_284_000)

    /// What the parser said about a refused value; nil when it took the value. An error of
    /// another type fails the test.
    func message(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as ArgumentValueError {
            return error.message
        } catch {
            Issue.record("not an ArgumentValueError: \(error)")
            return "\(error)"
        }
    }

    @Test(arguments: [
        ("90s", 90), ("30m", 1_800), ("2h", 7_200), ("1d", 86_400), ("1h30m", 5_400), ("1d2h3m4s", 93_784),
        (" 2h ", 7_200),
        ("15m", 900),
    ])
    func durationsInEveryUnit(_ text: String, _ seconds: Int) throws {
        #expect(try DurationArgument(parsing: text).seconds == seconds)
    }

    @Test(arguments: ["", "2x", "h", "-5m", "1.5h", "30m2h", "1h1h", "2 h", "2H", "0x10s"])
    func notADuration(_ text: String) {
        let said = message { _ = try DurationArgument(parsing: text) }
        #expect(said?.contains("90s, 30m, 2h, 1d or 1h30m") == true, "\(text): \(said ?? "accepted")")
    }

    @Test(arguments: [
        ("0", Int64(0)), ("4096", 4096), ("512K", 524_288), ("512k", 524_288), ("10M", 10_485_760),
        ("10MiB", 10_485_760),
        ("2G", 2_147_483_648), ("1T", 1_099_511_627_776), ("100B", 100), (" 3 M ", 3_145_728),
    ])
    func sizesInEveryUnit(_ text: String, _ bytes: Int64) throws {
        #expect(try ByteCountArgument(parsing: text).bytes == bytes)
    }

    @Test(arguments: ["", "M", "-5", "1.5G", "10X", "10MB2", "0x10"])
    func notASize(_ text: String) {
        let said = message { _ = try ByteCountArgument(parsing: text) }
        #expect(said?.contains("such as 4096, 512K or 10M") == true, "\(text): \(said ?? "accepted")")
    }

    @Test func aSizeBeyondInt64IsRefused() throws {
        #expect(message { _ = try ByteCountArgument(parsing: "8388608T") }?.contains("too large") == true)
        #expect(message { _ = try ByteCountArgument(parsing: "99999999999999999999") }?.contains("too large") == true)
        #expect(try ByteCountArgument(parsing: "8388607T").bytes == 8_388_607 << 40)
    }

    @Test func aBareNumberIsRefusedWithTheUnitsItCouldMean() {
        let said = message { _ = try DurationArgument(parsing: "30") }
        #expect(said?.contains("has no unit") == true)
        #expect(said?.contains("30m") == true && said?.contains("30s") == true, "\(said ?? "accepted")")
    }

    @Test func aNumberLeftWithoutItsUnitIsRefused() {
        #expect(message { _ = try DurationArgument(parsing: "2h30") }?.contains("ends without a unit") == true)
    }

    @Test func zeroAndOverflowAreRefused() {
        #expect(message { _ = try DurationArgument(parsing: "0m") }?.contains("longer than zero") == true)
        #expect(message { _ = try DurationArgument(parsing: "0h0m") }?.contains("longer than zero") == true)
        #expect(message { _ = try DurationArgument(parsing: "99999999999999999999d") }?.contains("too long") == true)
        #expect(message { _ = try DurationArgument(parsing: "999999999999999999d") }?.contains("too long") == true)
    }

    @Test(arguments: [(5_400, "1h30m"), (90, "1m30s"), (86_400, "1d"), (900, "15m"), (93_784, "1d2h3m4s")])
    func durationsSpellThemselvesInTheirLargestUnits(_ seconds: Int, _ text: String) throws {
        #expect(DurationArgument(seconds: seconds).description == text)
        #expect(try DurationArgument(parsing: text).seconds == seconds)
    }

    @Test(arguments: [
        "2026-11-21T18:00:00Z", "2026-11-21T19:00:00+01:00", "2026-11-21T13:00:00-05:00", "2026-11-21T18:00:00.000Z",
    ])
    func isoTimesWithAZone(_ text: String) throws {
        #expect(try TimeArgument(parsing: text) == .at(Self.evening))
        #expect(try TimeArgument(parsing: text).resolved(now: Date(timeIntervalSince1970: 0)) == Self.evening)
    }

    @Test func fractionalSecondsAreKept() throws {
        #expect(try TimeArgument(parsing: "2026-11-21T18:00:00.250Z") == .at(Self.evening.addingTimeInterval(0.25)))
    }

    @Test(arguments: [("30m", 1_800.0), ("2h", 7_200.0), ("1d", 86_400.0), ("90s", 90.0)])
    func durationsCountFromNow(_ text: String, _ seconds: Double) throws {
        let time = try TimeArgument(parsing: text)
        #expect(time == .fromNow(try DurationArgument(parsing: text)))
        #expect(time.resolved(now: Self.evening) == Self.evening.addingTimeInterval(seconds))
    }

    @Test func anOptionWhereATimeShouldBeSaysTheTimeIsMissing() {
        do {
            _ = try TimeArgument(parsing: "--json")
            Issue.record("--json was taken as a time")
        } catch {
            #expect(error.description.hasPrefix("a time is missing"), "\(error)")
        }
    }

    @Test(arguments: ["-2h", "-30m", " -1d"])
    func aDurationBackwardsIsInThePast(_ text: String) {
        #expect(throws: ArgumentValueError.self) { try TimeArgument(parsing: text) }
        do {
            _ = try TimeArgument(parsing: text)
        } catch {
            #expect(error.description.contains("is in the past"), "\(error)")
        }
    }

    @Test(arguments: ["tomorrowish", "", "now", "2026-13-45T99:00:00Z", "21/11/2026 18:00", "30"])
    func notATime(_ text: String) {
        let said = message { _ = try TimeArgument(parsing: text) }
        #expect(said?.contains("ISO-8601") == true, "\(text): \(said ?? "accepted")")
        #expect(said?.contains("2026-11-21T18:00:00Z") == true && said?.contains("30m") == true)
    }

    @Test(arguments: [
        ("2026-11-21T18:00:00", "2026-11-21T18:00:00Z"), ("2026-11-21T18:00", "2026-11-21T18:00:00Z"),
        ("2026-11-21 18:00:00", "2026-11-21T18:00:00Z"), ("2026-11-21T18:00:00.5", "2026-11-21T18:00:00.5Z"),
    ])
    func aTimeWithoutAZoneSaysToAddOne(_ text: String, _ suggested: String) throws {
        let said = message { _ = try TimeArgument(parsing: text) }
        #expect(said?.contains("no time zone") == true, "\(text): \(said ?? "accepted")")
        #expect(said?.contains("+01:00") == true)
        // The suggestion is a time the flag takes.
        #expect(said?.contains("(\(suggested))") == true, "\(said ?? "accepted")")
        _ = try TimeArgument(parsing: suggested)
    }

    @Test(arguments: [
        ("30", 30.0), ("30%", 30.0), ("0", 0.0), ("100", 100.0), ("100%", 100.0), ("12.5%", 12.5), (" 40 % ", 40.0),
    ])
    func batteryPercentages(_ text: String, _ percent: Double) throws {
        #expect(try BatteryPercent(parsing: text).percent == percent)
    }

    @Test(arguments: ["150", "101%", "-1", "100.5"])
    func batteryOutOfRangeNamesTheRange(_ text: String) {
        let said = message { _ = try BatteryPercent(parsing: text) }
        #expect(said?.contains("out of range") == true, "\(text): \(said ?? "accepted")")
        #expect(said?.contains("from 0 to 100") == true)
    }

    @Test(arguments: ["abc", "%", "30%%", "", "nan", "inf", "thirty"])
    func notAPercentage(_ text: String) {
        let said = message { _ = try BatteryPercent(parsing: text) }
        #expect(said?.contains("not a percentage") == true, "\(text): \(said ?? "accepted")")
        #expect(said?.contains("30 or 30%") == true)
    }

    @Test func networkWordsAreTheAPIs() throws {
        #expect(ChoiceArgument.values(of: JobConstraints.Network.self) == ["any", "unmetered", "not_cellular", "none"])
        for network in JobConstraints.Network.allCases {
            #expect(try ChoiceArgument.parse(network.rawValue, as: JobConstraints.Network.self) == network)
        }
        let said = message { _ = try ChoiceArgument.parse("online", as: JobConstraints.Network.self) }
        #expect(said == "\"online\" is not one of any, unmetered, not_cellular, none")
    }

    @Test func deadlineActionWordsAreTheAPIs() throws {
        #expect(try ChoiceArgument.parse("run", as: DeadlineAction.self) == .run)
        #expect(try ChoiceArgument.parse("expire", as: DeadlineAction.self) == .expire)
        #expect(
            message { _ = try ChoiceArgument.parse("fail", as: DeadlineAction.self) }
                == "\"fail\" is not one of run, expire"
        )
    }
}
