import Foundation
import NIOHTTP1
import Testing

@testable import LullTransfer

/// What a resumed download names in `If-Range` (RFC 9110): a strong `ETag`, else a
/// `Last-Modified` at least a second older than the answer; else nothing, and the download
/// starts over rather than splice two versions of a file changed within its last second.
@Suite struct ResumeValidatorTests {
    static let served = "Mon, 02 Jun 2025 10:00:00 GMT"

    @Test func aStrongETagComesFirstAndAWeakOneIsNeverUsed() {
        #expect(FetchTransfer.resumeValidator(["etag": "\"v1\"", "last-modified": Self.served]) == "\"v1\"")
        #expect(
            FetchTransfer.resumeValidator([
                "etag": "W/\"v1\"", "last-modified": "Mon, 02 Jun 2025 09:00:00 GMT", "date": Self.served,
            ]) == "Mon, 02 Jun 2025 09:00:00 GMT"
        )
    }

    @Test func aLastModifiedIsUsedOnlyWhenItIsStrong() {
        let now = Date()
        #expect(
            FetchTransfer.resumeValidator(["last-modified": "Mon, 02 Jun 2025 09:59:59 GMT", "date": Self.served])
                == "Mon, 02 Jun 2025 09:59:59 GMT"
        )
        // Modified in the second it was served: weak.
        #expect(FetchTransfer.resumeValidator(["last-modified": Self.served, "date": Self.served]) == nil)
        // No Date: our clock stands in.
        #expect(FetchTransfer.resumeValidator(["last-modified": Self.served], now: now) == Self.served)
        let justNow = HTTPDate.string(now)
        #expect(FetchTransfer.resumeValidator(["last-modified": justNow], now: now) == nil)
        #expect(FetchTransfer.resumeValidator(["last-modified": "yesterday"]) == nil)
    }
}

extension HTTPDate {
    static func string(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
