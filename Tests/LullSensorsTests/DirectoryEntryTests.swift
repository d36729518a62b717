import Glibc
import LullKernelFiles
import Testing

/// A `readdir` record is only as long as its `d_reclen`: the last one in a buffer can end right
/// before an unmapped page. Reading its name must not touch what lies past it (copying the
/// whole `dirent` did, and lulld's /proc scan crashed on it in CI).
@Suite struct DirectoryEntryTests {
    @Test func aShortRecordBeforeAnUnmappedPageIsReadInPlace() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let region = try #require(
            mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            "mmap"
        )
        #expect(region != MAP_FAILED)
        defer { munmap(region, 2 * page) }
        #expect(mprotect(region.advanced(by: page), page, PROT_NONE) == 0)

        // A record for "1234" as the kernel packs it: the header, the name and its NUL, rounded
        // up to 8 bytes, ending at the guard page.
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        let length = (nameOffset + 5 + 7) / 8 * 8
        #expect(length < MemoryLayout<dirent>.size, "shorter than a whole dirent")
        let record = region.advanced(by: page - length)
        memset(record, 0, length)
        let entry = record.assumingMemoryBound(to: dirent.self)
        entry.pointer(to: \.d_reclen)!.pointee = UInt16(length)
        for (index, byte) in "1234".utf8.enumerated() {
            record.storeBytes(of: byte, toByteOffset: nameOffset + index, as: UInt8.self)
        }

        let name = DirectoryEntry.withName(entry) { String(decoding: $0, as: UTF8.self) }
        #expect(name == "1234")
    }
}
