import Foundation
import LullTestSupport
import Testing

/// Run jobs on the systemd host (issue 25, must-show 5 and 6): the system instance runs each
/// command as its owner in `lull-job-<id>.service` under `lull-jobs.slice`, enforces
/// `memory_max`, and keeps a second user out; the user instance runs through its user's
/// manager, and a `unit` job starts an existing unit and reports its exit status.
@Suite(
    .serialized,
    .enabled(
        if: SystemdEnvironment.shouldRun,
        "systemd-nspawn end-to-end tests need root, systemd-nspawn and debootstrap"
    )
)
struct RunJobsUnderSystemdTests {
    static let socket = "/run/lull/lull.sock"

    @Test(.timeLimit(.minutes(8)))
    func systemInstanceRunsCommandsAsTheirOwnersUnits() throws {
        let machine = try SystemdEnvironment.boot(ownCgroups: true)
        defer { machine.shutDown() }
        try SystemdEnvironment.reportingJournal(of: machine) { try systemInstance(machine) }
    }

    private func systemInstance(_ machine: NspawnMachine) throws {
        try SystemdEnvironment.install(into: machine)
        try machine.makeCgroupControllersWritable()
        for user in ["alice", "bob"] {
            try machine.check(["useradd", "--create-home", "--groups", "lull-clients", user])
        }
        try machine.check(["systemctl", "start", "lulld.socket"])
        let api = ContainerAPI(machine: machine, socket: Self.socket)
        let alice = machine.uid(of: "alice")

        // By default the system instance starts commands itself, as the unit's `lull` user,
        // which can neither become alice nor stop her processes: her command is refused at
        // submission, saying what would run it.
        let refused = try api.request("POST", "/v1/jobs", body: ["kind": "run", "argv": ["true"]], as: "alice")
        #expect(refused.status == 403, "\(refused.status) \(refused.body)")
        #expect(refused.body.contains("can neither become uid \(alice)"), "\(refused.body)")
        #expect(refused.body.contains("[run] host = \\\"systemd\\\""), "\(refused.body)")
        print("system instance, process host: alice's command refused: \(refused.body)")
        try machine.check(["systemctl", "stop", "lulld.service"])

        try machine.write("[run]\nhost = \"systemd\"\n", to: "/etc/lull/lull.toml")
        // The opt-in rule the system instance's units need (installed with the docs).
        try machine.check([
            "install", "-m", "0644", "/usr/share/doc/lull/examples/50-lull-jobs.rules", "/etc/polkit-1/rules.d/",
        ])
        try machine.check(["systemctl", "try-restart", "polkit.service"])

        // As alice, in its own unit in lull-jobs.slice; the view says so.
        let job = try api.submit(
            ["kind": "run", "argv": ["sh", "-c", "id -u; cat /proc/self/cgroup; sleep 2; echo done"]],
            as: "alice"
        )
        let unit = "lull-job-\(job).service"
        try machine.waitFor("\(unit) to run", timeout: .seconds(20)) {
            try machine.property(unit, "ActiveState") == "active" ? true : nil
        }
        #expect(try machine.property(unit, "User") == alice)
        let group = try machine.property(unit, "ControlGroup")
        #expect(group == "/lull.slice/lull-jobs.slice/\(unit)", "ControlGroup \(group)")
        // The manager named lulld's own unit (GetUnitByPID over the system bus, as user lull),
        // and the plain names were kept for this state directory.
        #expect(try machine.check(["cat", "/var/lib/lull/job-unit-tag"]) == "plain\n/var/lib/lull\n")
        // The rule lets lulld stop its job units, a second instance's tagged ones included, and
        // nothing else.
        let lulld = try machine.property("lulld.service", "MainPID")
        for (name, allowed) in [
            (unit, true), ("lull-job-0123abcd-7.service", true), ("lull-job-x-7.service", false),
            ("ssh.service", false),
        ] {
            let asked = try machine.run([
                "pkcheck", "--action-id", "org.freedesktop.systemd1.manage-units", "--process", lulld,
                "--detail", "unit", name, "--detail", "verb", "stop",
            ])
            #expect((asked.status == 0) == allowed, "\(name): pkcheck exited \(asked.status) \(asked.stderr)")
        }
        // A second uid neither sees nor stops it.
        #expect(try api.view(job, as: "bob") == nil)
        #expect(try api.request("DELETE", "/v1/jobs/\(job)", as: "bob").status == 404)
        #expect(try api.request("POST", "/v1/jobs/\(job)/pause", as: "bob").status == 404)
        #expect(try api.waitForState(job, "succeeded", as: "alice") == "succeeded")
        let view = try #require(try api.view(job, as: "alice"))
        let result = view["result"] as? [String: Any] ?? [:]
        let tail = result["output_tail"] as? String ?? ""
        #expect(tail.hasPrefix("\(alice)\n"), "output tail: \(tail)")
        #expect(tail.contains("memory:/lull.slice/lull-jobs.slice/\(unit)\n"), "output tail: \(tail)")
        #expect(tail.hasSuffix("done\n"), "output tail: \(tail)")
        #expect(result["unit"] as? String == unit, "the view names the unit: \(result)")
        print("run job \(job) under systemd as uid \(alice) in \(group): \(result)")
        // Each line of its output is in the journal too, with its JOB_ID.
        let journal = try machine.waitFor("job \(job)'s output in the journal", timeout: .seconds(10)) {
            () -> String? in
            let text = try machine.check(["journalctl", "--no-pager", "-o", "cat", "JOB_ID=\(job)"])
            return text.contains("\ndone\n") || text.hasSuffix("done\n") ? text : nil
        }
        #expect(journal.contains("\(alice)\n"), "journal: \(journal)")

        // Each word reaches the command as given, though systemd expands `$NAME` in ExecStart's
        // words; a program relative to the working directory runs too (ExecStart wants a path).
        try machine.check(
            [
                "runuser", "-u", "alice", "--", "sh", "-c",
                "cat > /home/alice/show-args; chmod 755 /home/alice/show-args",
            ],
            input: Data("#!/bin/sh\nprintf '[%s]\\n' \"$@\"\n".utf8)
        )
        let words = ["$HOME", "${USER}", "a$$b", "$", "two words"]
        let shown = try api.submit(
            ["kind": "run", "argv": ["./show-args"] + words, "working_directory": "/home/alice"],
            as: "alice"
        )
        #expect(try api.waitForState(shown, "succeeded", as: "alice") == "succeeded")
        let shownResult = try #require(try api.view(shown, as: "alice"))["result"] as? [String: Any] ?? [:]
        #expect(
            shownResult["output_tail"] as? String == words.map { "[\($0)]\n" }.joined(),
            "output tail: \(shownResult)"
        )

        // memory_max is the unit's MemoryMax=; going past it fails the job as memory_limit.
        let hungry = try api.submit(
            [
                "kind": "run", "memory_max": 32 << 20,
                "argv": ["python3", "-c", "import time; b = bytearray(256 << 20); time.sleep(5)"],
            ],
            as: "alice"
        )
        #expect(try api.waitForState(hungry, "failed", as: "alice") == "failed")
        let failed = try #require(try api.view(hungry, as: "alice"))
        let error = failed["error"] as? [String: Any] ?? [:]
        #expect(error["code"] as? String == "memory_limit", "\(failed)")

        // Pause freezes the unit's processes: their CPU time stands still until resume. Read from
        // the process (this host splits cpu and cpuacct, which systemd 252 does not account).
        let busy = try api.submit(["kind": "run", "argv": ["sh", "-c", "while :; do :; done"]], as: "alice")
        let busyUnit = "lull-job-\(busy).service"
        let pid = try machine.mainPID(of: busyUnit)
        func cpuTicks() throws -> Int {
            let stat = try machine.check(["cat", "/proc/\(pid)/stat"])
            let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
            return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
        }
        try machine.waitFor("\(busyUnit) to burn CPU", timeout: .seconds(20)) { try cpuTicks() > 20 ? true : nil }
        #expect(try api.request("POST", "/v1/jobs/\(busy)/pause", as: "alice").status == 200)
        try machine.waitFor("the paused job's process to stop", timeout: .seconds(10)) { () -> Bool? in
            let state = try machine.check(["sh", "-c", "cut -d' ' -f3 /proc/\(pid)/stat"]).trimmed
            return state == "T" ? true : nil
        }
        #expect(try api.state(busy, as: "alice") == "paused")
        let frozenAt = try cpuTicks()
        Thread.sleep(forTimeInterval: 1)
        let frozenLater = try cpuTicks()
        #expect(frozenLater - frozenAt <= 1, "CPU went on while paused: \(frozenAt) -> \(frozenLater) ticks")
        #expect(try api.request("POST", "/v1/jobs/\(busy)/resume", as: "alice").status == 200)
        try machine.waitFor("the resumed job to burn CPU again", timeout: .seconds(20)) {
            try cpuTicks() > frozenLater + 20 ? true : nil
        }

        // The total timeout stops while the unit is frozen: paused for longer than its 4 s, the
        // command is still there, and it times out once the rest of its time has run after the
        // resume. (With the unit's RuntimeMaxSec=, systemd stopped it during the pause.)
        let timed = try api.submit(
            [
                "kind": "run", "timeouts": ["total_seconds": 4], "retry": ["max_attempts": 1],
                "argv": ["sleep", "300"],
            ],
            as: "alice"
        )
        let timedUnit = "lull-job-\(timed).service"
        _ = try machine.mainPID(of: timedUnit)
        #expect(try api.request("POST", "/v1/jobs/\(timed)/pause", as: "alice").status == 200)
        Thread.sleep(forTimeInterval: 6)
        #expect(try api.state(timed, as: "alice") == "paused")
        #expect(try machine.property(timedUnit, "ActiveState") == "active")
        #expect(try api.request("POST", "/v1/jobs/\(timed)/resume", as: "alice").status == 200)
        let resumedAt = Date()
        #expect(try api.waitForState(timed, "failed", as: "alice") == "failed")
        #expect(Date().timeIntervalSince(resumedAt) >= 1, "timed out at its resume")
        let timedOut = try #require(try api.view(timed, as: "alice"))
        #expect((timedOut["error"] as? [String: Any])?["code"] as? String == "total_timeout", "\(timedOut)")
        // Under cgroup v1 an OOM kill is told from the kernel's count, which is the whole
        // machine's: a command with a memory limit that ignores SIGTERM, killed at the end of its
        // timeout's stop while another job went past its own limit, still timed out (systemd
        // calls that SIGKILL the stop's timeout, which the count does not override).
        let stubborn = try api.submit(
            [
                "kind": "run", "memory_max": 256 << 20, "timeouts": ["total_seconds": 4], "stop_grace_seconds": 1,
                "retry": ["max_attempts": 1],
                "argv": [
                    "python3", "-c",
                    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(300)",
                ],
            ],
            as: "alice"
        )
        let stubbornUnit = "lull-job-\(stubborn).service"
        _ = try machine.mainPID(of: stubbornUnit)
        let overLimit = try api.submit(
            [
                "kind": "run", "memory_max": 32 << 20, "retry": ["max_attempts": 1],
                "argv": ["python3", "-c", "b = bytearray(256 << 20)"],
            ],
            as: "alice"
        )
        #expect(try api.waitForState(overLimit, "failed", as: "alice") == "failed")
        let overView = try #require(try api.view(overLimit, as: "alice"))
        #expect((overView["error"] as? [String: Any])?["code"] as? String == "memory_limit", "\(overView)")
        #expect(try api.state(stubborn, as: "alice") == "running", "the other job's kill came before the timeout")
        #expect(try api.waitForState(stubborn, "failed", as: "alice") == "failed")
        let stopped = try #require(try api.view(stubborn, as: "alice"))
        #expect((stopped["error"] as? [String: Any])?["code"] as? String == "total_timeout", "\(stopped)")
        // A pause that meets a unit on its way down (an admin's stop) does not SIGSTOP its
        // processes: a command cleaning up after SIGTERM (here for 4 s) finishes and ends by
        // itself, well within its 30 s stop grace. The refused freeze ends the attempt.
        let leaving = try api.submit(
            [
                "kind": "run", "stop_grace_seconds": 30, "retry": ["max_attempts": 1],
                "argv": [
                    "python3", "-c",
                    "import signal, sys, time; signal.signal(signal.SIGTERM, lambda *_: (time.sleep(4), sys.exit(0)));"
                        + " open('/tmp/leaving.ready', 'w').close(); time.sleep(300)",
                ],
            ],
            as: "alice"
        )
        let leavingUnit = "lull-job-\(leaving).service"
        let leavingPID = try machine.mainPID(of: leavingUnit)
        // Its handler is in place before the stop.
        try machine.waitFor("the command's SIGTERM handler", timeout: .seconds(20)) {
            try machine.run(["test", "-e", "/tmp/leaving.ready"]).status == 0 ? true : nil
        }
        try machine.check(["systemctl", "stop", "--no-block", leavingUnit])
        try machine.waitFor("\(leavingUnit) to be stopping", timeout: .seconds(10)) {
            try machine.property(leavingUnit, "ActiveState") == "deactivating" ? true : nil
        }
        let stopAsked = Date()
        #expect(try api.request("POST", "/v1/jobs/\(leaving)/pause", as: "alice").status == 200)
        try machine.waitFor("the stopping command to end by itself", timeout: .seconds(15)) {
            try machine.run(["test", "-e", "/proc/\(leavingPID)"]).status != 0 ? true : nil
        }
        #expect(Date().timeIntervalSince(stopAsked) < 15, "the command ended by its stop grace's SIGKILL")
        _ = try api.request("DELETE", "/v1/jobs/\(leaving)", as: "alice")
        // A lulld that dies leaves its command's unit running; the job's next attempt stops that
        // unit before it starts the command again: never two at once.
        let long = try api.submit(
            ["kind": "run", "argv": ["sh", "-c", "echo run >> /home/alice/runs; exec sleep 60"]],
            as: "alice"
        )
        let longUnit = "lull-job-\(long).service"
        let firstPID = try machine.mainPID(of: longUnit)
        try machine.check(["systemctl", "kill", "--signal=KILL", "lulld.service"])
        let secondPID = try machine.waitFor("a new attempt of job \(long)", timeout: .seconds(40)) { () -> String? in
            let pid = try machine.property(longUnit, "MainPID")
            return pid != "0" && !pid.isEmpty && pid != firstPID ? pid : nil
        }
        #expect(try machine.check(["cat", "/home/alice/runs"]) == "run\nrun\n")
        // Stopped as the new lulld started, before any job ran: no attempt follows such a unit,
        // and without RuntimeMaxSec= nothing else would end it.
        let startLog = try machine.check(["journalctl", "-u", "lulld.service", "--no-pager", "-o", "cat"])
        #expect(
            startLog.contains("stopped \(longUnit), a command a previous lulld left running"),
            "lulld's log: \(startLog.suffix(2000))"
        )
        #expect(try machine.run(["kill", "-0", firstPID]).status != 0, "the first attempt's \(firstPID) still runs")
        #expect(try machine.run(["kill", "-0", secondPID]).status == 0)
        #expect(try api.request("DELETE", "/v1/jobs/\(long)", as: "alice").status == 200)

        // Cancel stops the unit.
        #expect(try api.request("DELETE", "/v1/jobs/\(busy)", as: "alice").status == 200)
        try machine.waitFor("\(busyUnit) to go", timeout: .seconds(20)) {
            let state = try machine.property(busyUnit, "ActiveState")
            return state == "inactive" || state == "failed" ? true : nil
        }
    }

    @Test(.timeLimit(.minutes(6)))
    func userInstanceRunsCommandsAndUnitsThroughTheUserManager() throws {
        let machine = try SystemdEnvironment.boot()
        defer { machine.shutDown() }
        try SystemdEnvironment.reportingJournal(of: machine) { try userInstance(machine) }
    }

    private func userInstance(_ machine: NspawnMachine) throws {
        try SystemdEnvironment.install(into: machine)
        try machine.check(["useradd", "--create-home", "bob"])
        try machine.check(["loginctl", "enable-linger", "bob"])
        let uid = machine.uid(of: "bob")
        try machine.waitFor("bob's user manager", timeout: .seconds(30)) {
            try machine.property("user@\(uid).service", "ActiveState") == "active" ? true : nil
        }
        try machine.write(
            """
            [Unit]
            Description=A unit of bob's that a job starts
            [Service]
            Type=oneshot
            ExecStart=/bin/sh -c 'echo from-the-unit; exit 4'
            """,
            to: "/home/bob/.config/systemd/user/report.service"
        )
        try machine.check(["chown", "-R", "bob:bob", "/home/bob/.config"])
        try machine.write("[run]\nhost = \"systemd\"\n", to: "/home/bob/.config/lull/lull.toml")
        try machine.check(["chown", "-R", "bob:bob", "/home/bob/.config/lull"])
        let userctl = machine.systemctl(user: "bob")
        try machine.check(userctl + ["daemon-reload"])
        try machine.check(userctl + ["start", "lulld.socket"])
        let api = ContainerAPI(machine: machine, socket: "/run/user/\(uid)/lull/lull.sock")

        // A second lulld of bob's on the same manager, with a store of its own: its job 1 runs
        // while the first lulld's job 1 starts, runs and ends beside it (both were named
        // lull-job-1.service, and the second start stopped the first command as a leftover).
        try machine.check(
            [
                "runuser", "-u", "bob", "--", "env", "XDG_RUNTIME_DIR=/run/user/\(uid)", "systemd-run", "--user",
                "--unit=lull-second", "--property=Type=notify", "/usr/bin/lulld", "--state-dir",
                "/home/bob/.local/state/lull-second", "--socket", "/run/user/\(uid)/lull-second.sock",
            ]
        )
        let second = ContainerAPI(machine: machine, socket: "/run/user/\(uid)/lull-second.sock")
        let neighbour = try second.submit(["kind": "run", "argv": ["sleep", "300"]], as: "bob")
        #expect(neighbour == 1)
        let neighbourUnit = try machine.waitFor("the second lulld's unit to run", timeout: .seconds(20)) {
            () -> String? in
            let listed = try machine.check(
                userctl + ["list-units", "--plain", "--no-legend", "--state=active", "lull-job-*"]
            )
            return listed.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
                .first { $0.hasPrefix("lull-job-") && $0.hasSuffix("-1.service") }
        }
        #expect(neighbourUnit != "lull-job-1.service", "the second lulld tags its units")

        let job = try api.submit(["kind": "run", "argv": ["sh", "-c", "cat /proc/self/cgroup; sleep 1"]], as: "bob")
        #expect(job == 1, "the same id in both stores")
        #expect(try api.waitForState(job, "succeeded", as: "bob") == "succeeded")
        #expect(try machine.property(neighbourUnit, "ActiveState", user: "bob") == "active")
        #expect(try second.view(neighbour, as: "bob")?["state"] as? String == "running")
        #expect(try second.request("DELETE", "/v1/jobs/\(neighbour)", as: "bob").status == 200)
        #expect(try second.waitForState(neighbour, "cancelled", as: "bob") == "cancelled")
        let tail = (try api.view(job, as: "bob")?["result"] as? [String: Any])?["output_tail"] as? String ?? ""
        #expect(
            tail.contains("user@\(uid).service/lull.slice/lull-jobs.slice/lull-job-\(job).service"),
            "the command ran in the user manager's lull-jobs.slice: \(tail)"
        )

        let unitJob = try api.submit(["kind": "run", "unit": "report.service"], as: "bob")
        #expect(try api.waitForState(unitJob, "failed", as: "bob") == "failed")
        let view = try #require(try api.view(unitJob, as: "bob"))
        let result = view["result"] as? [String: Any] ?? [:]
        #expect(result["exit_code"] as? Int == 4, "\(view)")
        #expect(result["unit"] as? String == "report.service", "\(view)")
        #expect((view["error"] as? [String: Any])?["code"] as? String == "exit_status", "\(view)")
    }
}

extension NspawnMachine {
    /// The main pid of `unit` once it runs (a transient job unit appears only as it starts).
    fileprivate func mainPID(of unit: String) throws -> String {
        try waitFor("\(unit) to run", timeout: .seconds(20)) { () -> String? in
            let pid = try property(unit, "MainPID")
            return pid != "0" && !pid.isEmpty ? pid : nil
        }
    }
}
