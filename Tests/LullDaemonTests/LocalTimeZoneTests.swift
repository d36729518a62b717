import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// Class windows are in the zone the daemon's environment names (`TZ`), as the C library reads
/// it: a window that opens two hours from now in Kolkata (UTC+05:30, no daylight saving) must
/// say it opens then, not at that clock time in UTC.
@Suite struct LocalTimeZoneTests {
    @Test func aClassWindowOpensAtItsLocalTimeInTheDaemonsZone() async throws {
        let kolkata = try #require(TimeZone(identifier: "Asia/Kolkata"))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = kolkata
        let opens = try #require(calendar.date(byAdding: .hour, value: 2, to: Date()))
        let local = calendar.dateComponents([.hour, .minute], from: opens)
        let closes = try #require(calendar.date(byAdding: .hour, value: 1, to: opens))
        let closing = calendar.dateComponents([.hour, .minute], from: closes)
        func clock(_ parts: DateComponents) -> String { String(format: "%02d:%02d", parts.hour!, parts.minute!) }
        let window = "\(clock(local))-\(clock(closing))"
        let expected = try #require(
            calendar.nextDate(
                after: Date(),
                matching: DateComponents(hour: local.hour, minute: local.minute, second: 0),
                matchingPolicy: .strict
            )
        )

        let config = "[limits]\nmax_concurrent = 0\n\n[classes.maintenance]\nwindow = \"\(window)\"\n"
        try await withDaemon(config: config, environment: ["TZ": "Asia/Kolkata"]) { daemon, client in
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: "http://127.0.0.1:9/later",
                    destination: daemon.directory.appendingPathComponent("later").path,
                    jobClass: "maintenance"
                )
            )
            let explanation = try await client.explain(job.id)
            let reason = try #require(
                explanation.reasons.first { $0.code == "outside_window" },
                "\(explanation.reasons.map(\.text))"
            )
            let until = try #require(reason.until)
            #expect(
                abs(until.timeIntervalSince(expected)) < 1,
                "window \(window) in Kolkata opens at \(expected), daemon says \(until)"
            )
        }
    }
}
