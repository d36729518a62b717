import Foundation
import LullTestSupport
import Testing

/// What an admin meets when things go wrong: a broken config at start, and uninstalling.
extension SystemdServiceTests {
    @Test(.timeLimit(.minutes(4)))
    func brokenConfigFailsFastAndUninstallLeavesNothingRunning() throws {
        let machine = try SystemdEnvironment.boot()
        defer { machine.shutDown() }
        try SystemdEnvironment.reportingJournal(of: machine) { try brokenConfigThenUninstall(machine) }
    }

    private func brokenConfigThenUninstall(_ machine: NspawnMachine) throws {
        try SystemdEnvironment.install(into: machine)
        try machine.check(["useradd", "--create-home", "--groups", "lull-clients", "carol"])
        try machine.write("[classes.nightly\nmax_concurrent = 1\n", to: "/etc/lull/lull.toml")
        try machine.check(["systemctl", "enable", "--now", "lulld.socket"])
        try machine.check(["systemctl", "--global", "enable", "lulld.socket"])

        // The first client starts the service, which exits 2; the client hears why at once.
        let started = ContinuousClock.now
        let status = try machine.run(["runuser", "-u", "carol", "--", "lullctl", "status"])
        let took = ContinuousClock.now - started
        print("lullctl status against a broken config answered in \(took) (exit \(status.status))")
        #expect(status.status == 3)
        #expect(took < .seconds(5), "lullctl took \(took)")
        #expect(
            status.stderr.contains("lulld.service failed (exit status 2: invalid configuration)")
                && status.stderr.contains("journalctl -u lulld"),
            "\(status.stderr)"
        )
        // No restart loop: exit status 2 is in RestartPreventExitStatus=.
        Thread.sleep(forTimeInterval: 5)
        #expect(Int(try machine.property("lulld.service", "NRestarts")) ?? 99 == 0)
        #expect(try machine.property("lulld.service", "ActiveState") == "failed")
        #expect(try machine.property("lulld.service", "ExecMainStatus") == "2")
        let again = try machine.run(["runuser", "-u", "carol", "--", "lullctl", "status"])
        #expect(
            again.stderr.contains("exit status 2: invalid configuration")
                && again.stderr.contains("/run/lull/lull.sock"),
            "\(again.stderr)"
        )

        // Fixed, and brought back as the message says.
        try machine.write("[classes.nightly]\nmax_concurrent = 1\n", to: "/etc/lull/lull.toml")
        try machine.check(["lulld", "--check-config", "--system"])
        try machine.check(["systemctl", "reset-failed", "lulld.service", "lulld.socket"])
        try machine.check(["systemctl", "start", "lulld.socket"])
        let fixed = try machine.run(["runuser", "-u", "carol", "--", "lullctl", "status"])
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(try machine.property("lulld.service", "ActiveState") == "active")

        // Uninstalling stops and disables both units and leaves no wants links behind.
        let uninstall = try SystemdEnvironment.uninstall(from: machine)
        #expect(uninstall.status == 0, "\(uninstall.stdout)\(uninstall.stderr)")
        for unit in ["lulld.service", "lulld.socket"] {
            #expect(try machine.property(unit, "ActiveState") != "active", "\(unit) still active after uninstall")
        }
        let links = try machine.run(["sh", "-c", "find /etc/systemd /usr/lib/systemd /lib/systemd -name 'lulld*'"])
        #expect(links.stdout.trimmed.isEmpty, "left behind: \(links.stdout)")
        for path in ["/usr/bin/lulld", "/usr/share/dbus-1/system.d/lull.conf"] {
            #expect(try machine.run(["test", "-e", path]).status != 0, "\(path) left behind")
        }
    }
}
