import Foundation
import LullTestSupport
import Testing

/// lulld as systemd runs it: the real units, installed with `make install-files` into a Debian
/// root booted with `systemd-nspawn -b` (systemd as PID 1), driven with systemctl, journalctl,
/// curl and lullctl inside the container.
@Suite(.serialized, .enabled(if: SystemdEnvironment.shouldRun, "systemd-nspawn end-to-end tests need root, systemd-nspawn and debootstrap"))
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
            """, to: "/etc/systemd/system/lulld.service.d/test.conf")
        try machine.write(Self.config(heldSlots: 0), to: "/etc/lull/lull.toml")
        try machine.write(
            """
            [Unit]
            Description=Lull completion hook for job %i
            [Service]
            Type=oneshot
            RemainAfterExit=yes
            ExecStart=/bin/sh -c 'echo %i > /run/lull-hook-done-%i'
            """, to: "/etc/systemd/system/lull-hook-done@.service")
        try machine.check(["systemctl", "daemon-reload"])

        // Every unit verifies cleanly, and the service's exposure stays within 2.0.
        let verify = try machine.run([
            "systemd-analyze", "verify", "/usr/lib/systemd/system/lulld.service", "/usr/lib/systemd/system/lulld.socket",
            "/usr/lib/systemd/user/lulld.service", "/usr/lib/systemd/user/lulld.socket",
        ])
        #expect(verify.status == 0 && verify.stderr.isEmpty, "systemd-analyze verify: \(verify.stderr)")
        let security = try machine.run(["systemd-analyze", "security", "--no-pager", "lulld.service"])
        let exposure = SystemdEnvironment.exposure(security.stdout)
        print("systemd-analyze security lulld.service: overall exposure \(exposure.map { "\($0)" } ?? "unknown")")
        #expect(exposure != nil && exposure! <= 2.0, "exposure \(exposure.map { "\($0)" } ?? "unknown"):\n\(security.stdout.suffix(600))")

        // Socket activation: nothing runs until the first client connects.
        try machine.check(["systemctl", "start", "lulld.socket"])
        #expect(try machine.property("lulld.service", "ActiveState") == "inactive")
        let status = try machine.run(["env", "LULL_SOCKET=\(Self.socket)", "lullctl", "status"])
        #expect(status.status == 0, "lullctl status: \(status.stdout)\(status.stderr)")
        #expect(try machine.property("lulld.service", "ActiveState") == "active")
        #expect(try machine.property("lulld.service", "User") == "lull")
        let statusLine = try machine.property("lulld.service", "StatusText")
        #expect(statusLine.contains("running") && statusLine.contains("queued"), "STATUS=\(statusLine)")

        // Fetches as root and as alice; alice's file is hers (the daemon took on her identity).
        let api = ContainerAPI(machine: machine, socket: Self.socket)
        let rootJob = try api.submit(["kind": "fetch", "url": "http://127.0.0.1:\(port)/a.bin", "destination": "/srv/downloads/a.bin"])
        let aliceJob = try api.submit(
            ["kind": "fetch", "url": "http://127.0.0.1:\(port)/a.bin", "destination": "/srv/downloads/alice/a.bin"], as: "alice")
        #expect(try api.waitForState(rootJob, "succeeded") == "succeeded")
        #expect(try api.waitForState(aliceJob, "succeeded", as: "alice") == "succeeded")
        // The unit's UMask=0077 is the daemon's, not alice's: her file gets the default mode, 0644.
        #expect(try machine.check(["stat", "-c", "%U %s %a", "/srv/downloads/alice/a.bin"]).trimmed == "alice 65536 644")

        // journald: the job's records carry JOB_ID and friends as fields.
        let records = try machine.waitFor("journal records of job \(rootJob)", timeout: .seconds(10)) { () -> String? in
            let out = try machine.check(["journalctl", "-u", "lulld", "JOB_ID=\(rootJob)", "-o", "json", "--no-pager"])
            return out.contains("job succeeded") ? out : nil
        }
        #expect(records.contains("\"JOB_KIND\":\"fetch\"") && records.contains("\"OWNER_UID\":\"0\""))
        #expect(records.contains("\"SYSLOG_IDENTIFIER\":\"lulld\"") && records.contains("\"CODE_FUNC\""))
        #expect(records.contains("job started"))

        // A completion hook: the allowed template is started as lull-hook-done@ID.service.
        let hooked = try api.submit([
            "kind": "fetch", "url": "http://127.0.0.1:\(port)/a.bin", "destination": "/srv/downloads/b.bin",
            "on_complete_unit": "lull-hook-done@.service",
        ])
        #expect(try api.waitForState(hooked, "succeeded") == "succeeded")
        try machine.waitFor("lull-hook-done@\(hooked).service to run", timeout: .seconds(15)) {
            try machine.run(["test", "-e", "/run/lull-hook-done-\(hooked)"]).status == 0 ? true : nil
        }
        let refused = try api.request("POST", "/v1/jobs", body: [
            "kind": "fetch", "url": "http://127.0.0.1:\(port)/a.bin", "destination": "/srv/downloads/c.bin",
            "on_complete_unit": "reboot.target",
        ])
        #expect(refused.status == 400 && refused.body.contains("on_complete_unit") && refused.body.contains("allowed_units"))

        // Reload: a new class appears; a broken file is refused and the old policy stays.
        let nightly: [String: Any] = ["kind": "fetch", "url": "http://127.0.0.1:\(port)/a.bin", "destination": "/srv/downloads/n.bin", "class": "nightly"]
        #expect(try api.request("POST", "/v1/jobs", body: nightly).status == 400)
        let pid = try machine.property("lulld.service", "MainPID")
        try machine.write(Self.config(heldSlots: 0, extra: "[classes.nightly]\nmax_concurrent = 1\n"), to: "/etc/lull/lull.toml")
        try machine.check(["systemctl", "reload", "lulld"])
        try machine.waitFor("the reloaded policy to accept class nightly", timeout: .seconds(10)) {
            try api.request("POST", "/v1/jobs", body: nightly).status == 201 ? true : nil
        }
        try machine.write("[classes.nightly\nmax_concurrent = ", to: "/etc/lull/lull.toml")
        try machine.check(["systemctl", "reload", "lulld"])
        try machine.waitFor("the refused reload in the journal", timeout: .seconds(10)) {
            try machine.check(["journalctl", "-u", "lulld", "--no-pager", "-o", "cat"]).contains("reload refused") ? true : nil
        }
        #expect(try machine.property("lulld.service", "ActiveState") == "active")
        #expect(try machine.property("lulld.service", "MainPID") == pid)
        #expect(try api.request("POST", "/v1/jobs", body: nightly).status == 201, "the old policy (with nightly) stays")
        try machine.write(Self.config(heldSlots: 0, extra: "[classes.nightly]\nmax_concurrent = 1\n"), to: "/etc/lull/lull.toml")
        try machine.check(["systemctl", "reload", "lulld"])

        // Watchdog: a stopped process stops pinging and systemd restarts it.
        let stopped = ContinuousClock.now
        try machine.check(["kill", "-STOP", pid])
        let restartedPID = try machine.waitFor("the watchdog to restart lulld", timeout: .seconds(30), every: .milliseconds(250)) { () -> String? in
            let now = try machine.property("lulld.service", "MainPID")
            let state = try machine.property("lulld.service", "ActiveState")
            return state == "active" && now != pid && now != "0" ? now : nil
        }
        #expect(restartedPID != pid)
        print("watchdog (WatchdogSec=3): SIGSTOPped lulld replaced by pid \(restartedPID) after \(ContinuousClock.now - stopped)")
        #expect(Int(try machine.property("lulld.service", "NRestarts")) ?? 0 >= 1)
        #expect(try machine.check(["journalctl", "-u", "lulld", "--no-pager"]).contains("Watchdog timeout"))

        // Stop with held jobs: a clean exit, the jobs stay queued and run after the next start.
        let held = try (0..<3).map { index in
            try api.submit([
                "kind": "fetch", "url": "http://127.0.0.1:\(port)/a.bin", "destination": "/srv/downloads/held-\(index).bin",
                "class": "held",
            ])
        }
        #expect(try api.state(held[0]) == "queued")
        try machine.check(["systemctl", "stop", "lulld.service"])
        #expect(try machine.property("lulld.service", "ActiveState") == "inactive")
        #expect(try machine.property("lulld.service", "Result") == "success")
        #expect(try machine.property("lulld.service", "ExecMainStatus") == "0")
        try machine.write(Self.config(heldSlots: 2, extra: "[classes.nightly]\nmax_concurrent = 1\n"), to: "/etc/lull/lull.toml")
        try machine.check(["systemctl", "start", "lulld.service"])
        for job in held { #expect(try api.waitForState(job, "succeeded") == "succeeded") }
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
        try machine.check(["useradd", "--create-home", "bob"])
        try machine.write(
            """
            [Unit]
            Description=Lull completion hook for job %i (user)
            [Service]
            Type=oneshot
            ExecStart=/bin/sh -c 'echo %i > %t/hook-%i'
            """, to: "/etc/systemd/user/lull-done@.service")
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
        let status = try machine.run(["runuser", "-u", "bob", "--", "env", "LULL_SOCKET=\(socket)", "lullctl", "status"])
        #expect(status.status == 0, "lullctl status as bob: \(status.stdout)\(status.stderr)")
        #expect(try machine.property("lulld.service", "ActiveState", user: "bob") == "active")

        let api = ContainerAPI(machine: machine, socket: socket)
        let job = try api.submit(
            ["kind": "fetch", "url": "http://127.0.0.1:\(port)/a.bin", "destination": "/home/bob/a.bin", "on_complete_unit": "lull-done@.service"],
            as: "bob")
        #expect(try api.waitForState(job, "succeeded", as: "bob") == "succeeded")
        #expect(try machine.check(["stat", "-c", "%U", "/home/bob/a.bin"]).trimmed == "bob")
        try machine.waitFor("the user's lull-done@\(job).service to run", timeout: .seconds(15)) {
            try machine.run(["test", "-e", "/run/user/\(uid)/hook-\(job)"]).status == 0 ? true : nil
        }
        try machine.check(userctl + ["stop", "lulld.service"])
        #expect(try machine.property("lulld.service", "Result", user: "bob") == "success")
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

/// Booting and preparing the container, shared by the tests.
enum SystemdEnvironment {
    static var repository: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    /// The Swift runtime the debug binaries link against, bind-mounted read-only at the same path.
    static let swiftRuntime = "/opt/swift/usr/lib/swift/linux"

    /// On CI (and wherever the tools are present) the tests run; elsewhere they are skipped,
    /// and the reason is printed.
    static var shouldRun: Bool {
        if let reason = NspawnMachine.unavailableReason {
            let ci = ProcessInfo.processInfo.environment["CI"] == "true"
            FileHandle.standardError.write(Data("""
                \n*** SKIPPING the systemd-nspawn end-to-end tests: \(reason).\
                \(ci ? " On CI this is a failure." : "") ***\n\n
                """.utf8))
            return ci
        }
        return true
    }

    /// Runs `body`; when it throws, prints the container's journal (the last 200 lines) first.
    static func reportingJournal(of machine: NspawnMachine, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            let journal = (try? machine.run(["journalctl", "--no-pager", "-n", "200", "-o", "short-monotonic"]).stdout) ?? "(no journal)"
            let sockets = (try? machine.run(["sh", "-c", "ls -la /run/lull /run/user/*/lull; id alice; id bob"]).stdout) ?? ""
            print("container journal:\n\(journal)\nsockets and users:\n\(sockets)")
            throw error
        }
    }

    static func boot() throws -> NspawnMachine {
        if let reason = NspawnMachine.unavailableReason { throw NspawnError("cannot boot a container: \(reason)") }
        return try NspawnMachine(bindReadOnly: FileManager.default.fileExists(atPath: swiftRuntime) ? [swiftRuntime] : [])
    }

    /// `make install-files` into the container's root, then what a package's scripts would do.
    static func install(into machine: NspawnMachine) throws {
        let make = try CommandRunner.run("/usr/bin/make", [
            "-C", repository, "--no-print-directory", "install-files", "DESTDIR=\(machine.root)", "PREFIX=/usr",
            "INSTALL_FROM=\(DaemonProcess.productsDirectory.path)", "NO_SYSTEMD_SETUP=1",
        ])
        guard make.status == 0 else { throw NspawnError("make install-files failed: \(make.stdout)\(make.stderr)") }
        // The example config is a laptop policy; the tests write their own.
        try machine.check(["systemd-sysusers"])
        try machine.check(["systemd-tmpfiles", "--create", "/usr/lib/tmpfiles.d/lull.conf"])
        try machine.check(["install", "-d", "-m", "0755", "/srv/downloads", "/srv/www"])
        try machine.check(["systemctl", "daemon-reload"])
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
            try machine.run(["curl", "-sf", "-o", "/dev/null", "http://127.0.0.1:\(port)/a.bin"]).status == 0 ? true : nil
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

/// The control API inside the container, over curl on the Unix socket, as root or as a user.
struct ContainerAPI {
    let machine: NspawnMachine
    let socket: String

    struct Response {
        var status: Int
        var body: String
    }

    func request(_ method: String, _ path: String, body: [String: Any]? = nil, as user: String? = nil) throws -> Response {
        var arguments = ["curl", "-s", "--unix-socket", socket, "-X", method, "-w", "\n%{http_code}"]
        var input: Data?
        if let body {
            input = try JSONSerialization.data(withJSONObject: body)
            arguments += ["-H", "Content-Type: application/json", "--data-binary", "@-"]
        }
        arguments.append("http://lull\(path)")
        if let user { arguments = ["runuser", "-u", user, "--"] + arguments }
        let result = try machine.run(arguments, input: input)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let body = lines.dropLast().joined(separator: "\n")
        return Response(status: Int(lines.last ?? "") ?? 0, body: result.status == 0 ? body : body + " (curl exited \(result.status): \(result.stderr))")
    }

    func submit(_ body: [String: Any], as user: String? = nil) throws -> Int64 {
        let response = try request("POST", "/v1/jobs", body: body, as: user)
        guard response.status == 201, let id = try json(response.body)["id"] as? Int64 ?? (json(response.body)["id"] as? Int).map(Int64.init) else {
            throw NspawnError("submission refused (\(response.status)): \(response.body)")
        }
        return id
    }

    func state(_ id: Int64, as user: String? = nil) throws -> String? {
        let response = try request("GET", "/v1/jobs/\(id)", as: user)
        guard response.status == 200 else { return nil }
        return try json(response.body)["state"] as? String
    }

    /// Waits until the job is in `wanted` or another final state; returns that state.
    func waitForState(_ id: Int64, _ wanted: String, as user: String? = nil, timeout: Duration = .seconds(30)) throws -> String {
        try machine.waitFor("job \(id) to become \(wanted)", timeout: timeout) { () -> String? in
            let state = try self.state(id, as: user)
            return [wanted, "succeeded", "failed", "cancelled", "expired"].contains(state ?? "") ? state : nil
        }
    }

    private func json(_ text: String) throws -> [String: Any] {
        (try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
