import Foundation
import LullTestSupport

/// Booting and preparing the container, shared by the tests.
enum SystemdEnvironment {
    static var repository: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    /// The Swift runtime the debug binaries link against, bind-mounted read-only at the same path.
    static let swiftRuntime = "/opt/swift/usr/lib/swift/linux"

    /// On CI (and wherever the tools are present) the tests run; elsewhere they are skipped,
    /// and the reason is printed.
    static var shouldRun: Bool {
        if let reason = NspawnMachine.unavailableReason {
            let ci = ProcessInfo.processInfo.environment["CI"] == "true"
            FileHandle.standardError.write(
                Data(
                    """
                    \n*** SKIPPING the systemd-nspawn end-to-end tests: \(reason).\
                    \(ci ? " On CI this is a failure." : "") ***\n\n
                    """.utf8
                )
            )
            return ci
        }
        return true
    }

    /// Runs `body`; when it throws, prints the container's journal (the last 200 lines) first.
    static func reportingJournal(of machine: NspawnMachine, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            let journal =
                (try? machine.run(["journalctl", "--no-pager", "-n", "200", "-o", "short-monotonic"]).stdout)
                ?? "(no journal)"
            let sockets =
                (try? machine.run(["sh", "-c", "ls -la /run/lull /run/user/*/lull; id alice; id bob"]).stdout) ?? ""
            print("container journal:\n\(journal)\nsockets and users:\n\(sockets)")
            throw error
        }
    }

    /// `ownCgroups`: see `NspawnMachine.makeCgroupControllersWritable`.
    static func boot(ownCgroups: Bool = false) throws -> NspawnMachine {
        if let reason = NspawnMachine.unavailableReason { throw NspawnError("cannot boot a container: \(reason)") }
        let binds = FileManager.default.fileExists(atPath: swiftRuntime) ? [swiftRuntime] : []
        do {
            return try NspawnMachine(bindReadOnly: binds, ownCgroups: ownCgroups)
        } catch let hung as NspawnBootHung {
            // A boot that hangs says nothing about lulld; it is printed, so it stays visible, and
            // a fresh machine is booted once.
            print("container boot hung, booting a fresh one: \(hung)")
            return try NspawnMachine(bindReadOnly: binds, ownCgroups: ownCgroups)
        }
    }

    /// `make install-files` into the container's root, then what a package's scripts would do.
    static func install(into machine: NspawnMachine) throws {
        let make = try CommandRunner.run(
            "/usr/bin/make",
            [
                "-C", repository, "--no-print-directory", "install-files", "DESTDIR=\(machine.root)", "PREFIX=/usr",
                "INSTALL_FROM=\(DaemonProcess.productsDirectory.path)", "NO_SYSTEMD_SETUP=1",
            ]
        )
        guard make.status == 0 else { throw NspawnError("make install-files failed: \(make.stdout)\(make.stderr)") }
        // The example config is a laptop policy; the tests write their own.
        try machine.check(["systemd-sysusers"])
        try machine.check(["systemd-tmpfiles", "--create", "/usr/lib/tmpfiles.d/lull.conf"])
        try machine.check(["install", "-d", "-m", "0755", "/srv/downloads", "/srv/www"])
        try machine.check(["systemctl", "daemon-reload"])
        // The bus read lull.conf before user lull existed; the package's trigger reloads it.
        try machine.check(["systemctl", "reload", "dbus.service"])
        // polkitd reads rules at start; the new one must be in force for the hooks.
        try machine.check(["systemctl", "try-restart", "polkit.service"])
    }

    /// A python http.server as a transient unit in the container, serving a 64 KiB file.
    static func serveFiles(in machine: NspawnMachine, port: Int) throws {
        let bytes = Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try FileManager.default.createDirectory(atPath: machine.root + "/srv/www", withIntermediateDirectories: true)
        try bytes.write(to: URL(fileURLWithPath: machine.root + "/srv/www/a.bin"))
        try machine.check([
            "systemd-run", "--unit=lull-test-www", "--property=Type=exec", "python3", "-m", "http.server",
            "--bind", "127.0.0.1", "--directory", "/srv/www", "\(port)",
        ])
        try machine.waitFor("the file server on port \(port)", timeout: .seconds(15)) {
            try machine.run(["curl", "-sf", "-o", "/dev/null", "http://127.0.0.1:\(port)/a.bin"]).status == 0
                ? true : nil
        }
    }

    /// "Overall exposure level for lulld.service: 1.9 OK".
    static func exposure(_ output: String) -> Double? {
        guard let line = output.split(separator: "\n").first(where: { $0.contains("Overall exposure level") }),
            let match = line.firstMatch(of: /\.service: ([0-9.]+)/)
        else { return nil }
        return Double(match.1)
    }
}

extension SystemdEnvironment {
    /// What `make uninstall PREFIX=/usr` runs, run inside the container (which has no make): the
    /// recipe as `make -n` prints it.
    static func uninstall(from machine: NspawnMachine) throws -> CommandResult {
        let recipe = try CommandRunner.run(
            "/usr/bin/make",
            ["-C", repository, "-s", "-n", "--no-print-directory", "uninstall", "PREFIX=/usr"]
        )
        guard recipe.status == 0 else { throw NspawnError("make -n uninstall failed: \(recipe.stderr)") }
        return try machine.run(["sh", "-e"], input: Data(recipe.stdout.utf8))
    }
}
