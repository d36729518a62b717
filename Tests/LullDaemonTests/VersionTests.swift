import Foundation
import LullCore
import LullTestSupport
import Testing

/// Lull has one version, the top-level VERSION file (CHANGELOG.md). Everything that states it
/// must agree: the Swift code (`LullVersion.current`, behind `lulld --version`, `lullctl
/// --version`, `GET /v1/status` and the User-Agent), the Debian package's changelog, the Python
/// client, and the changelog's newest entry.
struct VersionTests {
    static let repository = PythonExample.repository

    static func read(_ path: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8)
    }

    static var version: String {
        get throws { try read("VERSION").trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    @Test func everyCopyOfTheVersionIsTheVersionFile() throws {
        let version = try Self.version
        #expect(version.wholeMatch(of: /[0-9]+\.[0-9]+\.[0-9]+/) != nil, "VERSION holds \(version)")
        #expect(LullVersion.current == version, "Sources/LullCore/LullVersion.swift says \(LullVersion.current)")
        let debian = try Self.read("debian/changelog").split(separator: "\n").first.map(String.init) ?? ""
        #expect(debian.hasPrefix("lull (\(version)) "), "debian/changelog begins \(debian)")
        let python = try Self.read("clients/python/src/lull/_version.py")
        #expect(python.contains("__version__ = \"\(version)\""), "clients/python: \(python)")
        let changelog = try Self.read("CHANGELOG.md")
        let newest = changelog.split(separator: "\n").first { $0.hasPrefix("## ") }.map(String.init) ?? ""
        #expect(newest.hasPrefix("## \(version)"), "CHANGELOG.md's newest entry is \(newest)")
    }

    @Test func theProgramsAndTheAPISayIt() async throws {
        let version = try Self.version
        for program in ["lulld", "lullctl"] {
            let result = try CommandRunner.run(DaemonProcess.binary(program), ["--version"])
            #expect(result.status == 0 && result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == version)
        }
        try await withDaemon { _, client in
            let status = try await client.status()
            #expect(status.version == version)
        }
    }
}
