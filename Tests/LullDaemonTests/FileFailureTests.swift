import Foundation
import LullCore
import Testing

@testable import LullTransfer

@Suite struct FileFailureTests {
    /// A read-only file system at run time (the system unit's `ProtectSystem=strict` outside its
    /// `ReadWritePaths=`) names the directory and the drop-in that makes it writable.
    @Test func readOnlyFileSystemNamesTheDropIn() {
        let directory = "/srv/downloads"
        let failure = FileFailure(operation: "open", path: directory + "/.f.lull-7.part", errno: EROFS).jobFailure
        #expect(failure.code == "file_error" && !failure.retryable)
        #expect(failure.message.contains("\(directory) is read-only for lulld"), "\(failure.message)")
        #expect(
            failure.message.contains("systemctl edit lulld: [Service] ReadWritePaths=\(directory))"),
            "\(failure.message)"
        )
        #expect(failure.message.contains("Read-only file system"), "\(failure.message)")
    }
}
