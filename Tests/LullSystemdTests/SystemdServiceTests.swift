import Foundation
import LullTestSupport
import Testing

/// lulld as systemd runs it: the real units, installed with `make install-files` into a Debian
/// root booted with `systemd-nspawn -b` (systemd as PID 1), driven with systemctl, journalctl,
/// curl and lullctl inside the container.
@Suite(
    .serialized,
    .enabled(
        if: SystemdEnvironment.shouldRun,
        "systemd-nspawn end-to-end tests need root, systemd-nspawn and debootstrap"
    )
)
struct SystemdServiceTests {
    static let socket = "/run/lull/lull.sock"

    @Test(.timeLimit(.minutes(8)))
    func systemInstanceUnderSystemd() throws {
        let machine = try SystemdEnvironment.boot()
        defer { machine.shutDown() }
        try SystemdEnvironment.reportingJournal(of: machine) { try systemInstance(machine) }
    }

    private func systemInstance(_ machine: NspawnMachine) throws {
        let port = 20_000 + Int(getpid() % 10_000)
        try SystemdEnvironment.install(into: machine)
        try SystemdEnvironment.serveFiles(in: machine, port: port)

        try expectInstalledConfigAndPages(machine)

        // A regular user in the socket's group, with a download directory only they can enter.
        try machine.check(["useradd", "--create-home", "--groups", "lull-clients", "alice"])
        try machine.check(["install", "-d", "-o", "alice", "-g", "alice", "-m", "0700", "/srv/downloads/alice"])
        try machine.write(
            """
            [Service]
            WatchdogSec=3
            TimeoutAbortSec=2
            # The watchdog aborts the hung daemon; its core would go to the host's core_pattern.
            LimitCORE=0
            ReadWritePaths=/srv/downloads
            """,
            to: "/etc/systemd/system/lulld.service.d/test.conf"
        )
        try machine.write(Self.config(heldSlots: 0), to: "/etc/lull/lull.toml")
        try machine.write(
            """
            [Unit]
            Description=Lull completion hook for job %i
            [Service]
            Type=oneshot
            RemainAfterExit=yes
            ExecStart=/bin/sh -c 'echo %i > /run/lull-hook-done-%i'
            """,
            to: "/etc/systemd/system/lull-hook-done@.service"
        )
        try machine.check(["systemctl", "daemon-reload"])

        // Every unit verifies cleanly, and the service's exposure stays within 2.0.
        let verify = try machine.run([
            // --man=no: the container has no man-db; the pages themselves are checked above.
            "systemd-analyze", "verify", "--man=no", "/usr/lib/systemd/system/lulld.service",
            "/usr/lib/systemd/system/lulld.socket",
            "/usr/lib/systemd/user/lulld.service", "/usr/lib/systemd/user/lulld.socket",
        ])
        #expect(verify.status == 0 && verify.stderr.isEmpty, "systemd-analyze verify: \(verify.stderr)")
        let security = try machine.run(["systemd-analyze", "security", "--no-pager", "lulld.service"])
        let exposure = SystemdEnvironment.exposure(security.stdout)
        print("systemd-analyze security lulld.service: overall exposure \(exposure.map { "\($0)" } ?? "unknown")")
        #expect(
            exposure != nil && exposure! <= 2.0,
            "exposure \(exposure.map { "\($0)" } ?? "unknown"):\n\(security.stdout.suffix(600))"
        )

        // Socket activation: nothing runs until the first client connects.
        try machine.check(["systemctl", "start", "lulld.socket"])
        #expect(try machine.property("lulld.service", "ActiveState") == "inactive")
        let status = try machine.run(["env", "LULL_SOCKET=\(Self.socket)", "lullctl", "status"])
        #expect(status.status == 0, "lullctl status: \(status.stdout)\(status.stderr)")
        #expect(try machine.property("lulld.service", "ActiveState") == "active")
        // A member of lull-clients with no daemon of their own finds the system one unaided.
        let found = try machine.run(["runuser", "-u", "alice", "--", "lullctl", "status"])
        #expect(
            found.status == 0 && found.stdout.contains("system instance at \(Self.socket)"),
            "\(found.stdout)\(found.stderr)"
        )
        #expect(try machine.property("lulld.service", "User") == "lull")
        let statusLine = try machine.property("lulld.service", "StatusText")
        #expect(statusLine.contains("running") && statusLine.contains("queued"), "STATUS=\(statusLine)")

        // Fetches as root and as alice; alice's file is hers (the daemon took on her identity).
        let api = ContainerAPI(machine: machine, socket: Self.socket)
        let rootJob = try api.submit([
            "kind": "fetch", "url": "http://127.0.0.1:\(port)/a.bin", "destination": "/srv/downloads/a.bin",
        ])
        let aliceJob = try api.submit(
            ["kind": "fetch", "url": "http://127.0.0.1:\(port)/a.bin", "destination": "/srv/downloads/alice/a.bin"],
            as: "alice"
        )
        #expect(try api.waitForState(rootJob, "succeeded") == "succeeded")
        #expect(try api.waitForState(aliceJob, "succeeded", as: "alice") == "succeeded")
        // The unit's UMask=0077 is the daemon's, not alice's: her file gets the default mode, 0644.
        #expect(
            try machine.check(["stat", "-c", "%U %s %a", "/srv/downloads/alice/a.bin"]).trimmed == "alice 65536 644"
        )

        // PrivateTmp=yes: the service's /tmp is not alice's. A fetch there would "succeed" into a
        // directory she cannot see and that is deleted at the next stop, so it is refused.
        let privateTmp = try api.request(
            "POST",
            "/v1/jobs",
            body: [
                "kind": "fetch", "url": "http://127.0.0.1:\(port)/a.bin", "destination": "/tmp/x.bin",
            ],
            as: "alice"
        )
        #expect(
            privateTmp.status == 400 && privateTmp.body.contains("PrivateTmp=yes"),
            "\(privateTmp.status) \(privateTmp.body)"
        )
        let privateVarTmp = try api.request(
            "POST",
            "/v1/jobs",
            body: [
                "kind": "upload", "url": "http://127.0.0.1:\(port)/up", "source": "/var/tmp/report.csv",
            ]
        )
        #expect(privateVarTmp.status == 400 && privateVarTmp.body.contains("\"source\""), "\(privateVarTmp.body)")

        // journald: the job's records carry JOB_ID and friends as fields.
        let records = try machine.waitFor("journal records of job \(rootJob)", timeout: .seconds(10)) { () -> String? in
            let out = try machine.check(["journalctl", "-u", "lulld", "JOB_ID=\(rootJob)", "-o", "json", "--no-pager"])
            return out.contains("job \(rootJob) succeeded: fetch http://127.0.0.1:\(port)/a.bin → /srv/downloads/a.bin")
                ? out : nil
        }
        #expect(records.contains("\"JOB_KIND\":\"fetch\"") && records.contains("\"OWNER_UID\":\"0\""))
        #expect(records.contains("\"SYSLOG_IDENTIFIER\":\"lulld\"") && records.contains("\"CODE_FUNC\""))
        #expect(records.contains("job \(rootJob) started: fetch"))

        // A completion hook: the allowed template is started as lull-hook-done@ID.service.
        let hooked = try api.submit([
            "kind": "fetch", "url": "http://127.0.0.1:\(port)/a.bin", "destination": "/srv/downloads/b.bin",
            "on_complete_unit": "lull-hook-done@.service",
        ])
        #expect(try api.waitForState(hooked, "succeeded") == "succeeded")
        try machine.waitFor("lull-hook-done@\(hooked).service to run", timeout: .seconds(15)) {
            try machine.run(["test", "-e", "/run/lull-hook-done-\(hooked)"]).status == 0 ? true : nil
        }
        let refused = try api.request(
            "POST",
            "/v1/jobs",
            body: [
                "kind": "fetch", "url": "http://127.0.0.1:\(port)/a.bin", "destination": "/srv/downloads/c.bin",
                "on_complete_unit": "reboot.target",
            ]
        )
        #expect(
            refused.status == 400 && refused.body.contains("on_complete_unit") && refused.body.contains("allowed_units")
        )

        // Reload: a new class appears; a broken file is refused and the old policy stays.
        let nightly: [String: Any] = [
            "kind": "fetch", "url": "http://127.0.0.1:\(port)/a.bin", "destination": "/srv/downloads/n.bin",
            "class": "nightly",
        ]
        #expect(try api.request("POST", "/v1/jobs", body: nightly).status == 400)
        let pid = try machine.property("lulld.service", "MainPID")
        try machine.write(
            Self.config(heldSlots: 0, extra: "[classes.nightly]\nmax_concurrent = 1\n"),
            to: "/etc/lull/lull.toml"
        )
        try machine.check(["systemctl", "reload", "lulld"])
        try machine.waitFor("the reloaded policy to accept class nightly", timeout: .seconds(10)) {
            try api.request("POST", "/v1/jobs", body: nightly).status == 201 ? true : nil
        }
        try machine.write("[classes.nightly\nmax_concurrent = ", to: "/etc/lull/lull.toml")
        // The refusal fails `systemctl reload`, and the journal (so `systemctl status`) says why.
        let refusedReload = try machine.run(["systemctl", "reload", "lulld"])
        #expect(refusedReload.status != 0, "systemctl reload of a broken config succeeded")
        try machine.waitFor("the refused reload in the journal", timeout: .seconds(10)) {
            let journal = try machine.check(["journalctl", "-u", "lulld", "--no-pager", "-o", "cat"])
            return journal.contains("reload refused: /etc/lull/lull.toml:1")
                && journal.contains("lulld ready: config /etc/lull/lull.toml") ? true : nil
        }
        // --check-config as root checks what the service reads, and says so.
        let check = try machine.run(["lulld", "--check-config"])
        #expect(
            check.status == 2 && check.stderr.contains("system instance")
                && check.stderr.contains("/etc/lull/lull.toml:1"),
            "\(check.stderr)"
        )
        #expect(try machine.property("lulld.service", "ActiveState") == "active")
        #expect(try machine.property("lulld.service", "MainPID") == pid)
        #expect(try api.request("POST", "/v1/jobs", body: nightly).status == 201, "the old policy (with nightly) stays")
        try machine.write(
            Self.config(heldSlots: 0, extra: "[classes.nightly]\nmax_concurrent = 1\n"),
            to: "/etc/lull/lull.toml"
        )
        try machine.check(["systemctl", "reload", "lulld"])

        // Watchdog: a stopped process stops pinging and systemd restarts it.
        let stopped = ContinuousClock.now
        try machine.check(["kill", "-STOP", pid])
        let restartedPID = try machine.waitFor(
            "the watchdog to restart lulld",
            timeout: .seconds(30),
            every: .milliseconds(250)
        ) { () -> String? in
            let now = try machine.property("lulld.service", "MainPID")
            let state = try machine.property("lulld.service", "ActiveState")
            return state == "active" && now != pid && now != "0" ? now : nil
        }
        #expect(restartedPID != pid)
        print(
            "watchdog (WatchdogSec=3): SIGSTOPped lulld replaced by pid \(restartedPID) after \(ContinuousClock.now - stopped)"
        )
        #expect(Int(try machine.property("lulld.service", "NRestarts")) ?? 0 >= 1)
        #expect(try machine.check(["journalctl", "-u", "lulld", "--no-pager"]).contains("Watchdog timeout"))

        // Stop with held jobs: a clean exit, the jobs stay queued and run after the next start.
        let held = try (0..<3).map { index in
            try api.submit([
                "kind": "fetch", "url": "http://127.0.0.1:\(port)/a.bin",
                "destination": "/srv/downloads/held-\(index).bin",
                "class": "held",
            ])
        }
        #expect(try api.state(held[0]) == "queued")
        try machine.check(["systemctl", "stop", "lulld.service"])
        #expect(try machine.property("lulld.service", "ActiveState") == "inactive")
        #expect(try machine.property("lulld.service", "Result") == "success")
        #expect(try machine.property("lulld.service", "ExecMainStatus") == "0")
        try machine.write(
            Self.config(heldSlots: 2, extra: "[classes.nightly]\nmax_concurrent = 1\n"),
            to: "/etc/lull/lull.toml"
        )
        try machine.check(["systemctl", "start", "lulld.service"])
        for job in held { #expect(try api.waitForState(job, "succeeded") == "succeeded") }

        // libdispatch logs each worker thread whose nice value it may not lower (the unit has no
        // CAP_SYS_NICE). The store's and the signal queue's threads no longer ask; what is left
        // is its manager thread, once per start.
        let journal = try machine.check(["journalctl", "--no-pager", "-o", "cat", "-u", "lulld.service"])
        let priorityLines = journal.components(separatedBy: "Failed to set thread priority").count - 1
        let starts = journal.components(separatedBy: "lulld ready").count - 1
        #expect(starts >= 2 && priorityLines <= starts, "\(priorityLines) priority complaints over \(starts) starts")
    }

    @Test(.timeLimit(.minutes(6)))
    func userInstanceUnderSystemctlUser() throws {
        let machine = try SystemdEnvironment.boot()
        defer { machine.shutDown() }
        try SystemdEnvironment.reportingJournal(of: machine) { try userInstance(machine) }
    }

    private func userInstance(_ machine: NspawnMachine) throws {
        let port = 20_000 + Int((getpid() + 1) % 10_000)
        try SystemdEnvironment.install(into: machine)
        try SystemdEnvironment.serveFiles(in: machine, port: port)

        try expectInstalledConfigAndPages(machine)
        try machine.check(["useradd", "--create-home", "bob"])
        try machine.write(
            """
            [Unit]
            Description=Lull completion hook for job %i (user)
            [Service]
            Type=oneshot
            ExecStart=/bin/sh -c 'echo %i > %t/hook-%i'
            """,
            to: "/etc/systemd/user/lull-done@.service"
        )
        // A lingering user has a manager (user@UID.service) without logging in.
        try machine.check(["loginctl", "enable-linger", "bob"])
        let uid = machine.uid(of: "bob")
        try machine.waitFor("bob's user manager", timeout: .seconds(30)) {
            try machine.property("user@\(uid).service", "ActiveState") == "active" ? true : nil
        }
        let userctl = machine.systemctl(user: "bob")
        try machine.check(userctl + ["daemon-reload"])
        try machine.check(userctl + ["start", "lulld.socket"])
        let socket = "/run/user/\(uid)/lull/lull.sock"
        #expect(try machine.run(["test", "-S", socket]).status == 0)
        #expect(try machine.property("lulld.service", "ActiveState", user: "bob") == "inactive")
        let status = try machine.run([
            "runuser", "-u", "bob", "--", "env", "LULL_SOCKET=\(socket)", "lullctl", "status",
        ])
        #expect(status.status == 0, "lullctl status as bob: \(status.stdout)\(status.stderr)")
        #expect(try machine.property("lulld.service", "ActiveState", user: "bob") == "active")

        let api = ContainerAPI(machine: machine, socket: socket)
        let job = try api.submit(
            [
                "kind": "fetch", "url": "http://127.0.0.1:\(port)/a.bin", "destination": "/home/bob/a.bin",
                "on_complete_unit": "lull-done@.service",
            ],
            as: "bob"
        )
        #expect(try api.waitForState(job, "succeeded", as: "bob") == "succeeded")
        #expect(try machine.check(["stat", "-c", "%U", "/home/bob/a.bin"]).trimmed == "bob")
        try machine.waitFor("the user's lull-done@\(job).service to run", timeout: .seconds(15)) {
            try machine.run(["test", "-e", "/run/user/\(uid)/hook-\(job)"]).status == 0 ? true : nil
        }
        try machine.check(userctl + ["stop", "lulld.service"])
        #expect(try machine.property("lulld.service", "Result", user: "bob") == "success")
    }

    /// Issue 30: /etc/lull/lull.toml is the system instance's example, valid and without keys
    /// the units make useless; the man pages the units cite are installed.
    private func expectInstalledConfigAndPages(_ machine: NspawnMachine) throws {
        let installed = try String(contentsOfFile: machine.root + "/etc/lull/lull.toml", encoding: .utf8)
        let example = try String(
            contentsOfFile: SystemdEnvironment.repository + "/examples/lull-system.toml",
            encoding: .utf8
        )
        #expect(installed == example, "make install-files installs examples/lull-system.toml as /etc/lull/lull.toml")
        let shipped = try machine.run(["lulld", "--check-config", "--system"])
        #expect(
            shipped.status == 0 && shipped.stderr.isEmpty && shipped.stdout.contains("/etc/lull/lull.toml: ok"),
            "\(shipped.stderr)"
        )
        for page in ["/usr/share/man/man8/lulld.8", "/usr/share/man/man5/lull.toml.5", "/usr/share/man/man1/lullctl.1"]
        {
            #expect(FileManager.default.fileExists(atPath: machine.root + page), "\(page) installed")
        }
    }

    static func config(heldSlots: Int, extra: String = "") -> String {
        """
        [classes.held]
        max_concurrent = \(heldSlots)

        [hooks]
        allowed_units = ["lull-hook-done@.service"]

        \(extra)
        """
    }
}
