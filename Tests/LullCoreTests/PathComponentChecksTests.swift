import Testing

@testable import LullCore

/// The byte scans of a submission's paths against oracles that split the path's bytes at
/// slashes, as the kernel resolves it, over seeded paths built from the pieces that matter:
/// slashes, `.`, `..`, dotted names, plain ones and a combining mark (which makes one
/// `Character` with the slash before it).
@Suite struct PathComponentChecksTests {
    private static let pieces = ["/", "//", ".", "..", "...", ".x", "x.", "tmp", "var", "a b", "é", "\u{301}"]

    private static func seededPaths() -> [String] {
        var random = SplitMix(seed: 0x7061_7468)
        return ["", "/", "..", "/..", "/tmp", "/tmp/", "/tmp/.", "/./tmp", "/tmp/\u{301}x", "/a/../\u{301}b"]
            + (0..<3000).map { _ in
                (0..<Int.random(in: 1...7, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            }
    }

    private static func components(_ path: String) -> [ArraySlice<UInt8>] {
        Array(path.utf8).split(separator: UInt8(ascii: "/"))
    }

    private static func normal(_ path: String) -> [UInt8] {
        let kept = components(path).filter { !$0.elementsEqual(".".utf8) }
        return kept.isEmpty ? Array("/".utf8) : kept.flatMap { [UInt8(ascii: "/")] + $0 }
    }

    @Test func aParentComponentIsFoundByItsBytes() {
        for path in Self.seededPaths() {
            let expected = Self.components(path).contains { $0.elementsEqual("..".utf8) }
            #expect(PathComponents.hasParent(path) == expected, "\(path)")
        }
        #expect(PathComponents.hasParent("/a/../\u{301}b"), "the kernel resolves that '..'")
    }

    @Test func privateDirectoriesAreFoundByTheNormalisedBytes() {
        let directories = PrivateDirectories(["/tmp", "/var/tmp"])
        for path in Self.seededPaths() {
            let normal = Self.normal(path)
            #expect(PathComponents.isPlain(path) == Array(path.utf8).elementsEqual(normal), "\(path)")
            let expected = directories.paths.first { directory in
                let prefix = Array(directory.utf8)
                return normal == prefix || normal.starts(with: prefix + [UInt8(ascii: "/")])
            }
            #expect(directories.containing(path) == expected, "\(path)")
        }
        #expect(directories.containing("/tmp/\u{301}x") == "/tmp", "a file the kernel puts in /tmp")
        #expect(PrivateDirectories().containing("/tmp/x") == nil)
    }
}
