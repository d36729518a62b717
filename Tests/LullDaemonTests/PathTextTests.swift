import Foundation
import Testing

@testable import LullTransfer

/// Directories and names by a path's text give what Foundation's URL gave for the same paths,
/// without its `stat`; and the staging file's name is what it was (a partial download from an
/// earlier version is found again and resumed).
@Suite struct PathTextTests {
    let paths = [
        "/a", "/a/b", "/srv/dl/d07.bin", "/home/u/Downloads/with space.iso", "/tmp//double//x",
        "/x/.hidden", "/x/y/z.tar.gz", "/é/ü.bin", "/a/b/",
    ]

    @Test func directoriesAndNamesAreURLs() {
        for path in paths {
            let url = URL(fileURLWithPath: path, isDirectory: false)
            let expected = url.deletingLastPathComponent().path
            #expect(PathText.directory(of: path) == (expected.isEmpty ? "/" : expected), "\(path)")
            #expect(PathText.name(of: path) == url.lastPathComponent, "\(path)")
        }
        #expect(PathText.directory(of: "/") == "/")
        #expect(PathText.directory(of: "bare") == ".")
        #expect(PathText.name(of: "bare") == "bare")
    }

    @Test func theStagingPathIsTheOneEarlierVersionsUsed() {
        for path in paths where !path.hasSuffix("/") {
            let url = URL(fileURLWithPath: path, isDirectory: false)
            let earlier = url.deletingLastPathComponent().appendingPathComponent(
                ".\(url.lastPathComponent).lull-42.part"
            )
            .path
            #expect(StagingFile.path(for: path, jobID: 42) == earlier, "\(path)")
        }
    }
}
