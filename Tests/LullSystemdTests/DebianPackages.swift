import Foundation
import LullTestSupport

/// The Debian packages the lifecycle test installs: `make deb` run on the debug build's binaries
/// (the static release build `make deb` makes by default costs a full release build, too long
/// for `make test`), once as this tree's version and once as a newer one.
/// `LULL_PACKAGE_BINARIES=.build-static/release` packages the static build instead, as shipped.
struct DebianPackages {
    static var binaries: String {
        ProcessInfo.processInfo.environment["LULL_PACKAGE_BINARIES"] ?? DaemonProcess.productsDirectory.path
    }

    let directory: String
    let version: String
    let newerVersion: String

    var current: String { path(version) }
    var newer: String { path(newerVersion) }

    /// Lull's one version, from the tree's VERSION file.
    static var treeVersion: String {
        get throws {
            try String(contentsOfFile: SystemdEnvironment.repository + "/VERSION", encoding: .utf8).trimmed
        }
    }

    /// Builds both packages at once into a new temporary directory (about half a minute each).
    static func build() throws -> DebianPackages {
        let version = try treeVersion
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-debs-\(UUID().uuidString.prefix(8))"
        ).path
        let packages = DebianPackages(directory: directory, version: version, newerVersion: version + "+upgradetest")
        let results = LockedResults()
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let wanted = index == 0 ? packages.version : packages.newerVersion
            results.set(index, Result { try packages.make(wanted) })
        }
        for result in results.all { try result.get() }
        return packages
    }

    private func path(_ version: String) -> String {
        "\(directory)/\(version)/lull_\(version)_\(Self.architecture).deb"
    }

    private static var architecture: String {
        ((try? CommandRunner.run("/usr/bin/dpkg", ["--print-architecture"]).stdout) ?? "amd64").trimmed
    }

    /// `make deb` of the debug binaries under `version`: gzip at its fastest and no debug-symbol
    /// package, because the binaries are ten times the size of the release ones; no lintian,
    /// which checks the real package (`make deb`), not this one.
    private func make(_ version: String) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["DEB_BUILD_OPTIONS"] = "noautodbgsym"
        environment["DPKG_DEB_COMPRESSOR_TYPE"] = "gzip"
        environment["DPKG_DEB_COMPRESSOR_LEVEL"] = "1"
        let result = try CommandRunner.run(
            "/usr/bin/make",
            [
                "-C", SystemdEnvironment.repository, "--no-print-directory", "deb",
                "DEB_BINARIES=\(Self.binaries)", "DEB_VERSION=\(version)",
                "DEB_DIR=\(directory)/\(version)", "DEB_LINTIAN=no",
            ],
            environment: environment
        )
        guard result.status == 0, FileManager.default.fileExists(atPath: path(version)) else {
            throw NspawnError(
                "make deb DEB_VERSION=\(version) failed (\(result.status)): \(result.stdout.suffix(3000))\(result.stderr.suffix(3000))"
            )
        }
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// The two builds' outcomes, written from concurrentPerform's threads.
private final class LockedResults: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Int: Result<Void, any Error>] = [:]

    func set(_ index: Int, _ result: Result<Void, any Error>) {
        lock.withLock { results[index] = result }
    }

    var all: [Result<Void, any Error>] { lock.withLock { Array(results.values) } }
}
