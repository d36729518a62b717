import Testing

@testable import LullCore

/// The byte scans of a submission's paths against the splitting they replaced, over seeded paths
/// built from the pieces that matter: slashes, `.`, `..`, dotted names and plain ones.
@Suite struct PathComponentChecksTests {
    private static let pieces = ["/", "//", ".", "..", "...", ".x", "x.", "tmp", "var", "a b", "é"]

    private static func seededPaths() -> [String] {
        var random = SplitMix(seed: 0x7061_7468)
        return ["", "/", "..", "/..", "/tmp", "/tmp/", "/tmp/.", "/./tmp"]
            + (0..<3000).map { _ in
                (0..<Int.random(in: 1...7, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            }
    }

    @Test func aParentComponentIsFoundAsSplittingFoundIt() {
        for path in Self.seededPaths() {
            #expect(
                JobSpecValidator.hasParentComponent(path) == path.split(separator: "/").contains(".."),
                "\(path)"
            )
        }
    }

    @Test func privateDirectoriesAreFoundAsWithNormalisedPaths() {
        let directories = PrivateDirectories(["/tmp", "/var/tmp"])
        for path in Self.seededPaths() {
            let normal = "/" + path.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
            let expected = directories.paths.first { normal == $0 || normal.hasPrefix($0 + "/") }
            #expect(directories.containing(path) == expected, "\(path)")
            if PrivateDirectories.isPlain(path) { #expect(path == normal, "\(path) is plain, so already normal") }
        }
        #expect(PrivateDirectories().containing("/tmp/x") == nil)
    }
}
