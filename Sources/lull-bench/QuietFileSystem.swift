#if canImport(Glibc)
import Glibc
#endif

/// Waits until files deleted before a section no longer slow the files it creates. On ext4
/// without a journal (this machine's root) a new file skips every inode deleted in the last
/// 60 s (up to 360 s while their inode-table block is dirty), at a cost each, so a section that
/// creates many files after one that deleted many would measure the other's deletions. Dirty
/// data is synced first, then the short window waited out; see performance.md's drain section.
enum QuietFileSystem {
    static let window: UInt32 = 61

    static func wait(progress: (String) -> Void) {
        progress("syncing, then \(window) s for the kernel's window on recently deleted inodes")
        sync()
        sleep(window)
    }
}
