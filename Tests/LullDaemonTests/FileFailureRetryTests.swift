import LullCore
import Testing

@testable import LullTransfer

#if canImport(Glibc)
import Glibc
#endif

/// Which file failures are worth another attempt: the owner's identity that could not be taken
/// on and exhausted descriptors or memory come back; a missing file or a refusal does not.
@Suite struct FileFailureRetryTests {
    @Test func passingTroubleIsRetriedAndTheFilesOwnTroubleIsNot() {
        let identity = FileFailure(
            operation: "take on the identity of uid 1000 for",
            path: "",
            errno: EIO,
            identity: true
        )
        #expect(identity.jobFailure.code == "account_unavailable" && identity.jobFailure.retryable)
        for code in [EMFILE, ENFILE, ENOMEM, EAGAIN, EINTR] {
            let failure = FileFailure(operation: "open", path: "/d/f", errno: code).jobFailure
            #expect(failure.retryable, "errno \(code)")
        }
        for code in [ENOENT, EACCES, ELOOP, EISDIR, EIO] {
            let failure = FileFailure(operation: "open", path: "/d/f", errno: code).jobFailure
            #expect(!failure.retryable, "errno \(code)")
        }
    }
}
