#if canImport(Glibc)
import Glibc
#endif

/// The name of an entry `readdir` returned, read where it lies. `entry.pointee` copies a whole
/// `dirent`, but the kernel packs entries by their `d_reclen`: the last one in glibc's buffer can
/// end short of a full `dirent`, right before an unmapped page, and the copy then faults.
public enum DirectoryEntry {
    public static func withName<Result>(
        _ entry: UnsafeMutablePointer<dirent>,
        _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        let name = UnsafeRawPointer(entry).advanced(by: offset)
        let length = strlen(name.assumingMemoryBound(to: CChar.self))
        return body(UnsafeBufferPointer(start: name.assumingMemoryBound(to: UInt8.self), count: length))
    }
}
