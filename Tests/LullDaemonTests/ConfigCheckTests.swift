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
        let unit = ConfigCheck(config: nil, instance: nil, environment: ["CONFIGURATION_DIRECTORY": "/etc/lull"], euid: 995)
        #expect(unit.instance == .system && unit.file == "/etc/lull/lull.toml")
    }

    @Test func theCommandNamesTheInstanceAndEveryFileAndFailsWithExit2() async throws {
        try await withTemporaryDirectory("check-config") { directory in
            let system = directory + "/etc-lull"
            let home = directory + "/config-home"
            try FileManager.default.createDirectory(atPath: system + "/lull.d", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: home + "/lull", withIntermediateDirectories: true)
            try "[classes.nightly]\nmax_concurrent = 1\n".write(toFile: system + "/lull.toml", atomically: true, encoding: .utf8)
            try "[limits]\nmax_concurrent = 2\n".write(toFile: system + "/lull.d/50-x.toml", atomically: true, encoding: .utf8)
            try "[classes.broken\n".write(toFile: home + "/lull/lull.toml", atomically: true, encoding: .utf8)
            let environment = ["CONFIGURATION_DIRECTORY": system, "XDG_CONFIG_HOME": home, "PATH": "/usr/bin:/bin"]

            let good = try CommandRunner.run(DaemonProcess.binary("lulld"), ["--check-config", "--system"], environment: environment)
            #expect(good.status == 0, "\(good.stderr)")
            #expect(good.stdout.contains("system instance"))
            #expect(good.stdout.contains("\(system)/lull.toml: ok") && good.stdout.contains("\(system)/lull.d/50-x.toml: ok"))

            let bad = try CommandRunner.run(DaemonProcess.binary("lulld"), ["--check-config", "--user"], environment: environment)
            #expect(bad.status == LulldExitStatus.invalidConfiguration.rawValue)
            #expect(bad.stderr.contains("user instance") && bad.stderr.contains("\(home)/lull/lull.toml:1"), "\(bad.stderr)")

            try "[classes.nightly]\nmax_concurrent = \"one\"\n".write(toFile: system + "/lull.toml", atomically: true, encoding: .utf8)
            let broken = try CommandRunner.run(DaemonProcess.binary("lulld"), ["--check-config", "--system"], environment: environment)
            #expect(broken.status == 2)
            #expect(broken.stderr.contains("\(system)/lull.toml:2: classes.nightly.max_concurrent"), "\(broken.stderr)")

            let missing = try CommandRunner.run(
                DaemonProcess.binary("lulld"), ["--check-config", "--system"],
                environment: ["CONFIGURATION_DIRECTORY": directory + "/none", "PATH": "/usr/bin:/bin"])
            #expect(missing.status == 0 && missing.stdout.contains("no \(directory)/none/lull.toml; the embedded defaults apply"))

            let misuse = try CommandRunner.run(DaemonProcess.binary("lulld"), ["--system"], environment: environment)
            #expect(misuse.status == LulldExitStatus.usage.rawValue && misuse.stderr.contains("--check-config"))
        }
    }
}
