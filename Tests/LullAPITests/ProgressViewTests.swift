import LullAPI
import LullCore
import Testing

/// The one progress fraction that `lullctl list`, `show`, `watch` and `top` draw.
@Suite struct ProgressViewTests {
    func fraction(_ done: Int64, of total: Int64?) -> Double? {
        ProgressView(TransferProgress(bytesDone: done, bytesTotal: total)).fraction
    }

    @Test func isTheShareOfTheKnownTotal() {
        #expect(fraction(0, of: 400) == 0)
        #expect(fraction(100, of: 400) == 0.25)
        #expect(fraction(400, of: 400) == 1)
    }

    @Test func moreThanTheTotalIsDoneNotPastIt() {
        #expect(fraction(600, of: 400) == 1)
    }

    @Test func anUnknownOrEmptyTotalHasNone() {
        #expect(fraction(100, of: nil) == nil)
        #expect(fraction(100, of: 0) == nil)
    }
}
