import LullCore
import LullTransfer
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A run job's account: an error from the password database is not an uid without an entry.
@Suite struct OwnerAccountTests {
    @Test func aDatabaseErrorFailsTheAttemptForARetry() {
        do {
            _ = try OwnerAccount.lookUp(1000) { _, _, _, found in
                found = nil
                return EIO
            }
            Issue.record("an error from the database was taken for an account")
        } catch {
            #expect(error.code == "account_unavailable")
            #expect(error.retryable)
            #expect(error.message.contains("uid 1000"), "\(error.message)")
        }
    }

    @Test func anUidWithoutAnEntryRunsAsItsOwnNumber() throws {
        let account = try OwnerAccount.lookUp(4_000_123) { _, _, _, found in
            found = nil
            return 0
        }
        #expect(account.uid == 4_000_123 && account.gid == 4_000_123 && account.groups == [4_000_123])
        #expect(account.name == "4000123" && account.home == "/")
    }

    /// An entry larger than the buffer (`ERANGE`) is asked for again with a larger one.
    @Test func aLargeEntryIsReadWithALargerBuffer() throws {
        var sizes: [Int] = []
        let account = try OwnerAccount.lookUp(0) { uid, entry, buffer, found in
            sizes.append(buffer.count)
            guard buffer.count > 16 << 10 else { return ERANGE }
            return getpwuid_r(uid, &entry, &buffer, buffer.count, &found)
        }
        #expect(sizes == [16 << 10, 64 << 10])
        #expect(account.name == "root" && account.uid == 0)
    }
}
