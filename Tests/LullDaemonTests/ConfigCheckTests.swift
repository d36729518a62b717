import Foundation
import LullAPI
import LullDaemon
import LullTestSupport
import Testing

/// `lulld --check-config` checks the file the installed service reads and says which.
@Suite struct ConfigCheckTests {
    @Test func rootChecksTheSystemInstancesFileNotItsOwn() throws {
        let check = ConfigCheck(config: nil, instance: nil, environment: ["HOME": "/root"], euid: 0)
        #expect(check.instance == .system && check.file == "/etc/lull/lull.toml")
        let user = ConfigCheck(config: nil, instance: nil, environment: ["HOME": "/home/ada"], euid: 1000)
        #expect(user.instance == .user && user.file == "/home/ada/.config/lull/lull.toml")
        let chosen = ConfigCheck(config: nil, instance: .user, environment: ["XDG_CONFIG_HOME": "/x"], euid: 0)
        #expect(chosen.file == "/x/lull/lull.toml")
        let unit = ConfigCheck(
            config: nil,
            instance: nil,
            environment: ["CONFIGURATION_DIRECTORY": "/etc/lull"],
            euid: 995
        )
        #expect(unit.instance == .system && unit.file == "/etc/lull/lull.toml")
    }

    @Test func theCommandNamesTheInstanceAndEveryFileAndFailsWithExit2() async throws {
        try await withTemporaryDirectory("check-config") { directory in
            let system = directory + "/etc-lull"
            let home = directory + "/config-home"
            try FileManager.default.createDirectory(atPath: system + "/lull.d", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: home + "/lull", withIntermediateDirectories: true)
            try "[classes.nightly]\nmax_concurrent = 1\n".write(
                toFile: system + "/lull.toml",
                atomically: true,
                encoding: .utf8
            )
            try "[limits]\nmax_concurrent = 2\n".write(
                toFile: system + "/lull.d/50-x.toml",
                atomically: true,
                encoding: .utf8
            )
            try "[classes.broken\n".write(toFile: home + "/lull/lull.toml", atomically: true, encoding: .utf8)
            let environment = ["CONFIGURATION_DIRECTORY": system, "XDG_CONFIG_HOME": home, "PATH": "/usr/bin:/bin"]

            let good = try CommandRunner.run(
                DaemonProcess.binary("lulld"),
                ["--check-config", "--system"],
                environment: environment
            )
            #expect(good.status == 0, "\(good.stderr)")
            #expect(good.stdout.contains("system instance"))
            #expect(
                good.stdout.contains("\(system)/lull.toml: ok")
                    && good.stdout.contains("\(system)/lull.d/50-x.toml: ok")
            )

            let bad = try CommandRunner.run(
                DaemonProcess.binary("lulld"),
                ["--check-config", "--user"],
                environment: environment
            )
            #expect(bad.status == LulldExitStatus.invalidConfiguration.rawValue)
            #expect(
                bad.stderr.contains("user instance") && bad.stderr.contains("\(home)/lull/lull.toml:1"),
                "\(bad.stderr)"
            )

            try "[classes.nightly]\nmax_concurrent = \"one\"\n".write(
                toFile: system + "/lull.toml",
                atomically: true,
                encoding: .utf8
            )
            let broken = try CommandRunner.run(
                DaemonProcess.binary("lulld"),
                ["--check-config", "--system"],
                environment: environment
            )
            #expect(broken.status == 2)
            #expect(broken.stderr.contains("\(system)/lull.toml:2: classes.nightly.max_concurrent"), "\(broken.stderr)")

            let missing = try CommandRunner.run(
                DaemonProcess.binary("lulld"),
                ["--check-config", "--system"],
                environment: ["CONFIGURATION_DIRECTORY": directory + "/none", "PATH": "/usr/bin:/bin"]
            )
            #expect(
                missing.status == 0
                    && missing.stdout.contains("no \(directory)/none/lull.toml; the embedded defaults apply")
            )

            let misuse = try CommandRunner.run(DaemonProcess.binary("lulld"), ["--system"], environment: environment)
            #expect(misuse.status == LulldExitStatus.usage.rawValue && misuse.stderr.contains("--check-config"))
        }
    }

    /// Issue 30: `socket_mode` and `state_dir` passed the check and did nothing under the units.
    @Test func keysTheShippedUnitsDecideAreWarnedAboutNotRefused() async throws {
        try await withTemporaryDirectory("check-config-ineffective") { directory in
            let file = directory + "/lull.toml"
            try """
            [daemon]
            state_dir = "/srv/lull"
            socket = "/run/lull/other.sock"
            socket_mode = "0666"
            socket_name = "ctl"

            [limits]
            max_concurrent = 2
            """.write(toFile: file, atomically: true, encoding: .utf8)
            let system = ConfigCheck(
                config: nil,
                instance: .system,
                environment: ["CONFIGURATION_DIRECTORY": directory]
            ).run()
            #expect(system.exitStatus == .success)
            let text = system.warnings.map(\.description)
            #expect(text.count == 4, "\(text)")
            #expect(
                text.contains {
                    $0.hasPrefix("\(file):2: daemon.state_dir: warning: ")
                        && $0.contains("StateDirectory= in a lulld.service drop-in")
                }
            )
            #expect(
                text.contains {
                    $0.hasPrefix("\(file):3: daemon.socket: warning: ")
                        && $0.contains("ListenStream= in a lulld.socket drop-in")
                }
            )
            #expect(
                text.contains {
                    $0.hasPrefix("\(file):4: daemon.socket_mode: warning: ") && $0.contains("SocketMode=")
                        && $0.contains("lulld.socket drop-in")
                }
            )
            #expect(text.contains { $0.hasPrefix("\(file):5: daemon.socket_name: warning: ") })

            // The user units pass --socket but not --state-dir: state_dir works there.
            let user = ConfigCheck(config: nil, instance: .user, environment: ["XDG_CONFIG_HOME": directory + "/xdg"])
            try FileManager.default.createDirectory(atPath: directory + "/xdg/lull", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: file, toPath: directory + "/xdg/lull/lull.toml")
            let userText = user.run().warnings.map(\.description)
            #expect(
                !userText.contains { $0.contains("daemon.state_dir") }
                    && userText.contains { $0.contains("daemon.socket_mode") },
                "\(userText)"
            )
            #expect(userText.contains { $0.contains("systemctl --user edit lulld.socket") })

            // The command prints them on stderr and still exits 0.
            let run = try CommandRunner.run(
                DaemonProcess.binary("lulld"),
                ["--check-config", "--system"],
                environment: ["CONFIGURATION_DIRECTORY": directory, "PATH": "/usr/bin:/bin"]
            )
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("\(file): ok"))
            #expect(run.stderr.contains("\(file):4: daemon.socket_mode: warning: has no effect"), "\(run.stderr)")
        }
    }

    /// Issue 30: a hook unit the polkit rule refuses was accepted and failed at run time.
    @Test func hookUnitsOutsideThePolkitRuleAreWarnedAbout() async throws {
        #expect(HookPolkitFence.allows("lull-hook-sync@.service") && HookPolkitFence.allows("lull-hook-x.target"))
        #expect(!HookPolkitFence.allows("sync-done.service") && !HookPolkitFence.allows("lull-hook-.service"))
        try await withTemporaryDirectory("check-config-hooks") { directory in
            let file = directory + "/lull.toml"
            try """
            [hooks]
            allowed_units = ["lull-hook-sync@.service", "backup@.service"]
            """.write(toFile: file, atomically: true, encoding: .utf8)
            let run = try CommandRunner.run(
                DaemonProcess.binary("lulld"),
                ["--check-config", "--system"],
                environment: ["CONFIGURATION_DIRECTORY": directory, "PATH": "/usr/bin:/bin"]
            )
            #expect(run.status == 0, "\(run.stderr)")
            let lines = run.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(run.stderr)")
            #expect(run.stderr.hasPrefix("\(file):2: hooks.allowed_units: warning: \"backup@.service\""))
            #expect(
                run.stderr.contains("lull-hook-*")
                    && run.stderr.contains("rename the unit (e.g. lull-hook-backup@.service)")
            )
            #expect(run.stderr.contains("extend the rule"))
            // A user instance starts its own units in its own manager: no polkit rule involved.
            let user = ConfigCheck(config: file, instance: nil, environment: [:]).run()
            #expect(user.warnings.isEmpty)
        }
    }

    /// At start, a key a flag overrides is logged with its file and line, and lulld runs on.
    @Test func aKeyTheCommandLineOverridesIsLoggedAtStart() async throws {
        let daemon = try DaemonProcess(config: "[daemon]\nstate_dir = \"/nonexistent/lull\"\nsocket_name = \"ctl\"\n")
        defer { daemon.remove() }
        try daemon.start()
        let log = daemon.log()
        #expect(
            log.contains(
                "\(daemon.configPath):2: daemon.state_dir: warning: has no effect in this run: --state-dir \(daemon.stateDirectory)"
            ),
            "\(log)"
        )
        #expect(log.contains("\(daemon.configPath):3: daemon.socket_name: warning: has no effect"), "\(log)")
        #expect(daemon.stop() == 0)
    }
}
