import Foundation
import LullTestSupport

/// What a guest's read-only payload disk is made of: lulld and lullctl as `make install-files`
/// lays them out, with the Swift runtime the debug build links, then an ext4 image of the lot.
enum GuestPayloadDisk {
    /// `make install-files` into `staging/root`, and the runtime beside it.
    static func stageLull(into staging: String) throws {
        // LULL_POWERCUT_PRODUCTS: lulld and lullctl from another build (a mutant, a release).
        let products =
            ProcessInfo.processInfo.environment["LULL_POWERCUT_PRODUCTS"] ?? DaemonProcess.productsDirectory.path
        try check(
            "/usr/bin/make",
            [
                "-C", SystemdEnvironment.repository, "--no-print-directory", "install-files",
                "DESTDIR=\(staging)/root", "PREFIX=/usr", "INSTALL_FROM=\(products)", "NO_SYSTEMD_SETUP=1",
            ]
        )
        try copySwiftRuntime(
            for: ["\(staging)/root/usr/bin/lulld", "\(staging)/root/usr/bin/lullctl"],
            into: staging + "/root"
        )
    }

    /// The Swift runtime libraries the binaries load from `/opt/swift` (their RUNPATH), copied to
    /// the same place in the guest.
    private static func copySwiftRuntime(for binaries: [String], into root: String) throws {
        var libraries = Set<String>()
        for binary in binaries {
            for line in try check("/usr/bin/ldd", [binary]).split(separator: "\n") {
                guard let path = line.split(separator: " ").first(where: { $0.hasPrefix("/opt/swift/") }) else {
                    continue
                }
                libraries.insert(String(path))
            }
        }
        guard !libraries.isEmpty else { return }  // a static build needs none
        for library in libraries {
            let target = root + library
            try FileManager.default.createDirectory(
                atPath: (target as NSString).deletingLastPathComponent,
                withIntermediateDirectories: true
            )
            try check("/bin/cp", ["-L", library, target])
        }
    }

    /// An ext4 image at `path` of `megabytes`, holding `directory`'s files (mkfs.ext4 -d fills
    /// a filesystem from a directory without mounting anything).
    static func makeFilesystem(_ path: String, label: String, megabytes: Int, from directory: String?) throws {
        try check("/usr/bin/truncate", ["-s", "\(megabytes)M", path])
        try check("/usr/sbin/mkfs.ext4", ["-q", "-F", "-L", label] + (directory.map { ["-d", $0] } ?? []) + [path])
    }

    /// A payload image sized for `staging`'s contents.
    static func makePayload(_ path: String, from staging: String) throws {
        let used = try check("/usr/bin/du", ["-sm", staging]).split(separator: "\t").first.flatMap { Int($0) } ?? 512
        try makeFilesystem(path, label: "lullpayload", megabytes: used * 5 / 4 + 64, from: staging)
    }

    @discardableResult
    static func check(_ executable: String, _ arguments: [String]) throws -> String {
        let result = try CommandRunner.run(executable, arguments)
        guard result.status == 0 else {
            throw QemuGuestError("\(executable) \(arguments.joined(separator: " ")): \(result.stdout)\(result.stderr)")
        }
        return result.stdout
    }
}
