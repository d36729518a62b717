import Foundation
import LullTestSupport
import Testing

/// The Debian package's life under a real systemd (issue 27): `apt install`, a normal user's job
/// through socket activation, a user instance, an upgrade over queued jobs across a schema
/// migration, `apt remove` and `apt purge`, each step checked by its effect.
extension SystemdServiceTests {
    static let packageDirectory = "/root/debs"

    @Test(.timeLimit(.minutes(8)))
    func debianPackageInstallUpgradeRemovePurge() throws {
        let packages = try DebianPackages.build()
        defer { packages.remove() }
        let machine = try SystemdEnvironment.boot()
        defer { machine.shutDown() }
        try SystemdEnvironment.reportingJournal(of: machine) {
            try FileManager.default.createDirectory(
                atPath: machine.root + Self.packageDirectory,
                withIntermediateDirectories: true
            )
            for deb in [packages.current, packages.newer] {
                let name = (deb as NSString).lastPathComponent
                try FileManager.default.copyItem(atPath: deb, toPath: machine.root + Self.packageDirectory + "/" + name)
            }
            let port = 20_000 + Int((getpid() + 2) % 10_000)
            try SystemdEnvironment.serveFiles(in: machine, port: port)
            let life = PackageLife(machine: machine, packages: packages, port: port)
            try life.install()
            let fetched = try life.fetchThroughSocketActivation()
            let userFile = try life.userInstance()
            try life.upgradeKeepsQueuedJobsAndConfig()
            try life.removeStopsAndKeepsState()
            try life.purgeRemovesOnlyWhatItMade(keeping: [fetched, userFile])
        }
    }
}

/// The steps, in order; each one checks its effect before the next begins.
private struct PackageLife {
    let machine: NspawnMachine
    let packages: DebianPackages
    let port: Int
    let socket = "/run/lull/lull.sock"
    /// What the admin writes over the shipped /etc/lull/lull.toml before the upgrade.
    let editedConfig = "\n# Edited by the admin: must survive the upgrade.\n[classes.held]\nmax_concurrent = 0\n"
    let siteDropIn = "# The admin's own drop-in.\n[classes.site]\nmax_concurrent = 1\n"

    var api: ContainerAPI { ContainerAPI(machine: machine, socket: socket) }

    func apt(_ arguments: [String]) throws -> String {
        try machine.check([
            "sh", "-c",
            "cd \(SystemdServiceTests.packageDirectory) && DEBIAN_FRONTEND=noninteractive apt "
                + arguments.joined(separator: " ") + " 2>&1",
        ])
    }

    func exists(_ path: String) throws -> Bool { try machine.run(["test", "-e", path]).status == 0 }

    func packageStatus() throws -> String {
        try machine.run(["dpkg-query", "-W", "-f", "${Version} ${Status}", "lull"]).stdout.trimmed
    }

    /// The store's migrations, oldest first, read without writing (the daemon's user owns it).
    func migrations() throws -> [String] {
        try machine.check([
            "python3", "-c",
            "import sqlite3; c = sqlite3.connect('file:/var/lib/lull/lull.sqlite?mode=ro', uri=True); "
                + "print('\\n'.join(r[0] for r in c.execute('SELECT identifier FROM grdb_migrations ORDER BY rowid')))",
        ]).split(separator: "\n").map(String.init)
    }

    /// `apt install ./lull_VERSION_ARCH.deb`: the user and group exist, the socket is enabled and
    /// listening, the service waits for its first client, the state directory and the config are
    /// in place.
    func install() throws {
        let output = try apt(["install", "-y", "./" + (packages.current as NSString).lastPathComponent])
        #expect(try packageStatus() == "\(packages.version) install ok installed", "\(output)")
        let user = try machine.check(["getent", "passwd", "lull"]).trimmed.split(separator: ":").map(String.init)
        #expect(user.count == 7 && user[5] == "/var/lib/lull", "\(user)")
        #expect(try machine.run(["getent", "group", "lull-clients"]).status == 0)
        // The bus passes user lull's FreezeUnit to systemd (lull.conf names the user, so it is in
        // force only once dbus's trigger has reloaded the bus after the package made the user):
        // systemd asks polkit, which wants an administrator without the opt-in jobs rule. The
        // bus's own refusal reads "Access denied".
        let freeze = try machine.run([
            "runuser", "-u", "lull", "--", "busctl", "call", "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
            "org.freedesktop.systemd1.Manager", "FreezeUnit", "s", "lulld.socket",
        ])
        print("package: user lull's FreezeUnit: \(freeze.stderr.trimmed)")
        #expect(freeze.stderr.contains("Interactive authentication required"), "\(freeze.stderr)")
        #expect(try machine.run(["systemctl", "is-enabled", "lulld.socket"]).stdout.trimmed == "enabled")
        #expect(try machine.property("lulld.socket", "ActiveState") == "active")
        #expect(try machine.property("lulld.service", "ActiveState") == "inactive")
        #expect(try machine.run(["systemctl", "is-enabled", "lulld.service"]).stdout.trimmed == "disabled")
        #expect(try machine.check(["stat", "-c", "%U %G %a", "/var/lib/lull"]).trimmed == "lull lull 700")
        #expect(try machine.check(["stat", "-c", "%U %G %a", socket]).trimmed == "root lull-clients 660")
        let shipped = try String(
            contentsOfFile: SystemdEnvironment.repository + "/examples/lull-system.toml",
            encoding: .utf8
        )
        #expect(try String(contentsOfFile: machine.root + "/etc/lull/lull.toml", encoding: .utf8) == shipped)
        #expect(try machine.check(["dpkg-query", "-W", "-f", "${Conffiles}", "lull"]).contains("/etc/lull/lull.toml"))
        #expect(try machine.check(["lulld", "--version"]).trimmed == packages.version)
        #expect(try machine.check(["lullctl", "--version"]).trimmed == packages.version)
        for path in [
            "/usr/share/man/man8/lulld.8.gz", "/usr/share/man/man1/lullctl.1.gz", "/usr/share/man/man5/lull.toml.5.gz",
            "/usr/share/bash-completion/completions/lullctl", "/usr/share/zsh/vendor-completions/_lullctl",
            "/usr/share/polkit-1/rules.d/50-lull-hooks.rules", "/usr/share/dbus-1/system.d/lull.conf",
            "/usr/share/doc/lull/README.md",
            "/usr/share/doc/lull/CHANGELOG.md", "/usr/lib/systemd/user/lulld.socket",
        ] {
            #expect(try exists(path), "\(path) installed")
        }
    }

    /// A member of lull-clients submits with lullctl; the connection starts the service.
    func fetchThroughSocketActivation() throws -> String {
        // Fetch destinations are writable only where the admin says (docs/security.md).
        try machine.write(
            "[Service]\nReadWritePaths=/srv/downloads\n",
            to: "/etc/systemd/system/lulld.service.d/downloads.conf"
        )
        try machine.check(["systemctl", "daemon-reload"])
        try machine.check(["useradd", "--create-home", "--groups", "lull-clients", "alice"])
        try machine.check(["install", "-d", "-o", "alice", "-g", "alice", "/srv/downloads/alice"])
        let destination = "/srv/downloads/alice/a.bin"
        #expect(try machine.property("lulld.service", "ActiveState") == "inactive")
        let submitted = try machine.check([
            "runuser", "-u", "alice", "--", "lullctl", "submit", "fetch", "http://127.0.0.1:\(port)/a.bin", "-o",
            destination, "--json",
        ])
        let id = try #require(Self.jobID(submitted), "lullctl submit --json printed \(submitted)")
        #expect(try machine.property("lulld.service", "ActiveState") == "active", "started by the socket")
        #expect(try api.waitForState(id, "succeeded", as: "alice") == "succeeded")
        let shown = try machine.check(["runuser", "-u", "alice", "--", "lullctl", "show", "\(id)", "--json"])
        let job = try JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any]
        #expect(job?["state"] as? String == "succeeded", "\(shown)")
        #expect(try machine.check(["stat", "-c", "%U %s", destination]).trimmed == "alice 65536")
        return destination
    }

    /// The packaged user units under `systemctl --user`, for a user with no access to the system
    /// instance: lullctl finds their own daemon, which runs their job with their rights.
    func userInstance() throws -> String {
        try machine.check(["useradd", "--create-home", "bob"])
        try machine.check(["loginctl", "enable-linger", "bob"])
        let uid = machine.uid(of: "bob")
        try machine.waitFor("bob's user manager", timeout: .seconds(30)) {
            try machine.property("user@\(uid).service", "ActiveState") == "active" ? true : nil
        }
        let userctl = machine.systemctl(user: "bob")
        try machine.check(userctl + ["enable", "--now", "lulld.socket"])
        let asBob = ["runuser", "-u", "bob", "--", "env", "XDG_RUNTIME_DIR=/run/user/\(uid)", "lullctl"]
        let status = try machine.check(asBob + ["status"])
        #expect(status.contains("user instance at /run/user/\(uid)/lull/lull.sock"), "\(status)")
        let destination = "/home/bob/b.bin"
        let submitted = try machine.check(
            asBob + ["submit", "fetch", "http://127.0.0.1:\(port)/a.bin", "-o", destination, "--json"]
        )
        let id = try #require(Self.jobID(submitted), "\(submitted)")
        let api = ContainerAPI(machine: machine, socket: "/run/user/\(uid)/lull/lull.sock")
        #expect(try api.waitForState(id, "succeeded", as: "bob") == "succeeded")
        #expect(try machine.check(["stat", "-c", "%U %s", destination]).trimmed == "bob 65536")
        #expect(try machine.property("lulld.service", "ActiveState", user: "bob") == "active")
        return destination
    }

    /// Installing the newer build over this one, with jobs queued, the config edited and a
    /// schema migration in the newer lulld (the test migration, which its unit drop-in turns on
    /// and the upgrade's daemon-reload picks up): the service restarts into the new build, which
    /// migrates the store; the jobs are still queued and run; the admin's file is untouched.
    func upgradeKeepsQueuedJobsAndConfig() throws {
        let config = try String(contentsOfFile: machine.root + "/etc/lull/lull.toml", encoding: .utf8) + editedConfig
        try machine.write(config, to: "/etc/lull/lull.toml")
        try machine.write(siteDropIn, to: "/etc/lull/lull.d/site.toml")
        try machine.check(["systemctl", "reload", "lulld.service"])
        let held = try (0..<3).map { index in
            try api.submit(
                [
                    "kind": "fetch", "url": "http://127.0.0.1:\(port)/a.bin",
                    "destination": "/srv/downloads/alice/held-\(index).bin", "class": "held",
                ],
                as: "alice"
            )
        }
        for id in held { #expect(try api.state(id, as: "alice") == "queued") }
        try machine.write(
            "[Service]\nEnvironment=LULL_TEST_MIGRATION=1\n",
            to: "/etc/systemd/system/lulld.service.d/test-migration.conf"
        )
        let before = try migrations()
        #expect(!before.isEmpty && !before.contains("test: package upgrade"), "\(before)")
        let pid = try machine.property("lulld.service", "MainPID")

        let output = try apt(["install", "-y", "./" + (packages.newer as NSString).lastPathComponent])
        #expect(try packageStatus() == "\(packages.newerVersion) install ok installed", "\(output)")
        #expect(try machine.property("lulld.service", "ActiveState") == "active")
        #expect(try machine.property("lulld.service", "MainPID") != pid, "the upgrade restarted lulld")
        #expect(try machine.property("lulld.socket", "ActiveState") == "active")
        #expect(try migrations() == before + ["test: package upgrade"])
        #expect(try String(contentsOfFile: machine.root + "/etc/lull/lull.toml", encoding: .utf8) == config)
        let leftovers = try machine.run(["sh", "-c", "ls /etc/lull/*.dpkg-* 2>/dev/null"]).stdout
        #expect(leftovers.isEmpty, "dpkg left \(leftovers)")
        for id in held { #expect(try api.state(id, as: "alice") == "queued", "job \(id) kept queued") }

        // The admin opens the class; the jobs from before the upgrade run.
        try machine.write(
            config.replacingOccurrences(of: "max_concurrent = 0", with: "max_concurrent = 2"),
            to: "/etc/lull/lull.toml"
        )
        try machine.check(["systemctl", "reload", "lulld.service"])
        for id in held { #expect(try api.waitForState(id, "succeeded", as: "alice") == "succeeded") }
    }

    /// `apt remove`: both instances stopped, the programs gone, the state and the config kept.
    func removeStopsAndKeepsState() throws {
        let uid = machine.uid(of: "bob")
        let output = try apt(["remove", "-y", "lull"])
        #expect(try packageStatus() == "\(packages.newerVersion) deinstall ok config-files", "\(output)")
        for unit in ["lulld.service", "lulld.socket"] {
            #expect(try machine.property(unit, "ActiveState") == "inactive", "\(unit) after remove")
        }
        #expect(try machine.property("lulld.service", "ActiveState", user: "bob") != "active")
        #expect(try machine.run(["pgrep", "-x", "lulld"]).status != 0, "no lulld runs")
        #expect(try !exists("/usr/bin/lulld") && !exists(socket) && !exists("/run/user/\(uid)/lull/lull.sock"))
        #expect(try exists("/var/lib/lull/lull.sqlite"), "the store is kept")
        #expect(try exists("/etc/lull/lull.toml"), "the config is kept")
    }

    /// `apt purge`: the state directory and the shipped config go; what the admin and the users
    /// made stays.
    func purgeRemovesOnlyWhatItMade(keeping made: [String]) throws {
        let output = try apt(["purge", "-y", "lull"])
        // dpkg forgets a purged package, or keeps it as not-installed: no files, no config-files.
        let status = try machine.run(["dpkg-query", "-W", "-f", "${Status}", "lull"])
        #expect(status.status != 0 || status.stdout.hasSuffix(" not-installed"), "\(status.stdout)\n\(output)")
        #expect(try !exists("/var/lib/lull"), "the state directory is gone")
        #expect(try !exists("/etc/lull/lull.toml"), "the shipped config is gone")
        #expect(try String(contentsOfFile: machine.root + "/etc/lull/lull.d/site.toml", encoding: .utf8) == siteDropIn)
        for path in made + [
            "/etc/systemd/system/lulld.service.d/downloads.conf", "/home/bob/.local/state/lull",
            "/srv/downloads/alice/held-0.bin",
        ] {
            #expect(try exists(path), "\(path) kept")
        }
        let links = try machine.check([
            "sh", "-c",
            "find /etc/systemd/system /lib/systemd /usr/lib/systemd -name 'lulld*' ! -path '*/lulld.service.d*'",
        ])
        #expect(links.trimmed.isEmpty, "left behind: \(links)")
    }

    static func jobID(_ json: String) -> Int64? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            return nil
        }
        return (object["id"] as? Int64) ?? (object["id"] as? Int).map(Int64.init)
    }
}
