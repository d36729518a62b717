import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// `lullctl watch` and `lullctl top` in a real terminal (tmux), and watch's plain output and
/// exit codes in a pipe.
@Suite(.enabled(if: TmuxSession.isAvailable, "needs tmux (make test installs it)"), .timeLimit(.minutes(2)))
struct LiveViewTests {
    static let lullctl = DaemonProcess.binary("lullctl")

    static func terminalEnvironment(_ daemon: DaemonProcess) -> [String: String] {
        ["LULL_SOCKET": daemon.socketPath, "LANG": "C.UTF-8", "TERM": "xterm-256color", "TZ": "UTC"]
    }

    @Test func watchDrawsAProgressBarThenTheEnd() async throws {
        let size = 8 << 20
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        // The first answer stalls at 3 MiB, so the bar sits part-way; the idle timeout ends that
        // attempt and the retry resumes with Range to the end.
        server.route(
            "/image.iso",
            .init(body: TestHTTPServer.bytes(count: size), etag: "\"v1\"", faults: [.stallAfter(3 << 20)])
        )
        try await withDaemon(config: fastRetries) { daemon, client in
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/image.iso"),
                    destination: daemon.directory.appendingPathComponent("image.iso").path,
                    label: "nightly",
                    timeouts: TimeoutSettings(idleSeconds: 6)
                )
            )
            let terminal = try TmuxSession(
                "\(Self.lullctl) watch \(job.id)",
                environment: Self.terminalEnvironment(daemon)
            )
            defer { terminal.close() }
            let running = try terminal.waitForScreen("a part-way progress bar") { screen in
                screen.contains("running") && screen.contains("█") && screen.contains(" of 8.0 MiB")
            }
            TmuxSession.keep(running, as: "watch-running.txt")
            #expect(running.contains("%"))
            #expect(running.contains("image.iso"))
            let done = try terminal.waitForScreen("the job's end and watch's exit", timeout: .seconds(60)) {
                $0.contains("exit=")
            }
            TmuxSession.keep(done, as: "watch-done.txt")
            #expect(done.contains("succeeded"))
            #expect(done.contains("100%"))
            #expect(done.contains("job \(job.id) succeeded"))
            #expect(done.contains("exit=0"))
            // Drawn in place: the job has one line on the final screen, not one per update.
            #expect(done.components(separatedBy: "image.iso").count - 1 == 1, "\(done)")
        }
    }

    @Test func watchPrintsPlainLinesIntoAPipeAndExitsNonZeroOnFailure() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.serve("/ok", Array("fine\n".utf8))
        try await withDaemon(config: fastRetries) { daemon, client in
            let good = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/ok"),
                    destination: daemon.directory.appendingPathComponent("ok").path
                )
            )
            let missing = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/missing"),
                    destination: daemon.directory.appendingPathComponent("no").path
                )
            )
            // Whether the jobs end before or after watch starts, it sees their ends (the cursor precedes its reads).
            let result = try CommandRunner.run(
                Self.lullctl,
                ["watch", String(good.id), String(missing.id), "--socket", daemon.socketPath]
            )
            #expect(result.status == 8, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(!result.stdout.contains("\u{1B}["), "no escape codes into a pipe")
            #expect(result.stdout.contains("job \(good.id)  succeeded"))
            #expect(result.stdout.contains("job \(missing.id)  failed  http_404"))
            #expect(result.stdout.contains("1 of 2 jobs did not succeed: job \(missing.id) failed (http_404)"))

            let success = try CommandRunner.run(
                Self.lullctl,
                ["watch", String(good.id), "--socket", daemon.socketPath]
            )
            #expect(success.status == 0)
            #expect(success.stdout.contains("job \(good.id) succeeded"))

            // A label no job has is a mistake, not success (a typo in `watch --label L && next`).
            let none = try CommandRunner.run(
                Self.lullctl,
                ["watch", "--label", "nothing-here", "--socket", daemon.socketPath]
            )
            #expect(none.status == 4)
            #expect(none.stderr.contains("no job has the label \"nothing-here\""), "\(none.stderr)")

            // A labelled job that failed before the watch began still decides its outcome.
            let early = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/missing"),
                    destination: daemon.directory.appendingPathComponent("early").path,
                    label: "batch"
                )
            )
            _ = try await awaitJob(early.id, in: [.failed], client: client)
            let late = try CommandRunner.run(
                Self.lullctl,
                ["watch", "--label", "batch", "--socket", daemon.socketPath]
            )
            #expect(late.status == 8, "\(late.stdout)")
            #expect(
                late.stdout.contains("no unfinished jobs with label \"batch\": 0 succeeded, 1 did not (\(early.id))"),
                "\(late.stdout)"
            )

            let unknown = try CommandRunner.run(Self.lullctl, ["watch", "999999", "--socket", daemon.socketPath])
            #expect(unknown.status == 4)
            #expect(unknown.stderr.contains("lullctl list"), "says what to do: \(unknown.stderr)")
        }
    }

    /// More jobs than rows, and file names in a script whose characters take two columns each:
    /// the block must stay within the window (a taller one scrolls a copy into the scrollback at
    /// every redraw) and every line within its width (a longer one wraps and breaks the redraw).
    @Test func watchKeepsToASmallWindowAndCtrlCExits130() async throws {
        try await withDaemon(config: "[limits]\nmax_concurrent = 0\n") { daemon, client in
            let ids = try await client.submit(
                batch: (1...25).map { number in
                    JobSubmission(
                        kind: .fetch,
                        url: "http://127.0.0.1:9/album/\(number)",
                        destination: daemon.directory.appendingPathComponent("写真アルバム-\(number).tar").path,
                        label: "album"
                    )
                }
            ).map(\.id)
            try Self.watchInASmallWindow(ids, daemon)
        }
    }

    /// The terminal part, synchronous: nothing may await while the (non-Sendable) session is open.
    private static func watchInASmallWindow(_ ids: [Int64], _ daemon: DaemonProcess) throws {
        let terminal = try TmuxSession(
            "\(lullctl) watch --label album",
            environment: terminalEnvironment(daemon),
            columns: 112,
            rows: 12
        )
        defer { terminal.close() }
        let first = try terminal.waitForScreen("the first jobs and a count of the rest") { $0.contains("25 queued") }
        TmuxSession.keep(first, as: "watch-small-window.txt")
        let rows = first.split(separator: "\n").map(String.init)
        // 12 rows: 9 jobs, the count of the rest, the status line, and the cursor's row.
        #expect(rows.filter { $0.contains("queued  ") }.count == 9, "\(first)")
        #expect(first.contains("… 16 more jobs not shown"))
        #expect(rows.contains { $0.contains("アルバム-") }, "the file names are shown: \(first)")
        let strayRows = rows.filter { !isWatchRow($0) }
        #expect(strayRows.isEmpty, "a row that is none of watch's own is a wrapped line: \(first)")
        #expect(rows.filter { !$0.isEmpty }.count == 11, "one row per line, none wrapped: \(first)")

        // A cancel redraws the block; the job leaves the shown ones for the next in line.
        let cancel = try CommandRunner.run(lullctl, ["cancel", String(ids[0]), "--socket", daemon.socketPath])
        #expect(cancel.status == 0, "\(cancel.stderr)")
        let redrawn = try terminal.waitForScreen("the redraw after a cancel") { $0.contains("24 queued, 1 cancelled") }
        let strayAfter = redrawn.split(separator: "\n").map(String.init).filter { !isWatchRow($0) }
        #expect(strayAfter.isEmpty, "\(redrawn)")
        let scrollback = try terminal.history().split(separator: "\n").map(String.init)
        let timesDrawn = ids[1...9].map { id in
            scrollback.filter { $0.hasPrefix("\(id)  ") || $0.hasPrefix(" \(id)  ") }.count
        }
        #expect(timesDrawn == Array(repeating: 1, count: 9), "each job drawn once, in place: \(scrollback)")

        try terminal.send("C-c")
        let stopped = try terminal.waitForScreen("watch to stop") { $0.contains("exit=") }
        #expect(stopped.contains("stopped watching; the jobs go on"))
        #expect(stopped.contains("exit=130"), "stopped early is not success: \(stopped)")
    }

    /// A daemon that stops and stays away: watch and events --follow give up with exit 3 once
    /// --reconnect-for has passed (a script waiting on them returns), and top keeps answering
    /// q at once while it says the daemon is gone.
    @Test func followersGiveUpOnADaemonThatStaysAwayAndTopStillQuits() async throws {
        try await withDaemon(config: holdEverything) { daemon, client in
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: "http://127.0.0.1:9/held",
                    destination: daemon.directory.appendingPathComponent("held").path
                )
            )
            let socket = ["--socket", daemon.socketPath]
            let watch = try BackgroundCommand(
                Self.lullctl,
                ["watch", String(job.id), "--plain", "--reconnect-for", "2"] + socket,
                in: daemon.directory
            )
            let events = try BackgroundCommand(
                Self.lullctl,
                ["events", "--follow", "--reconnect-for", "2"] + socket,
                in: daemon.directory
            )
            defer {
                watch.stop()
                events.stop()
            }
            let terminal = try TmuxSession("\(Self.lullctl) top", environment: Self.terminalEnvironment(daemon))
            defer { terminal.close() }
            try terminal.waitForScreen("top to draw") { $0.contains("1 queued") }
            try watch.waitForOutput("watch's first line") { $0.contains("job \(job.id)  queued") }
            try events.waitForOutput("the submitted event") { $0.contains("job \(job.id)  submitted") }

            #expect(daemon.stop() == 0)
            // 2 s of trying to reconnect, each try failing within a second: a generous bound.
            let giveUpBy = ContinuousClock.now + .seconds(8)
            try terminal.waitForScreen("top to say the daemon is gone") { $0.contains("lulld is not running") }
            try terminal.send("q")
            try terminal.waitForScreen("top to quit at once", timeout: .seconds(3)) { $0.contains("exit=0") }
            for (name, follower) in [("watch", watch), ("events --follow", events)] {
                let status = try follower.waitForExit(by: giveUpBy)
                #expect(status == 3, "\(name): \(follower.stderr)")
                #expect(follower.stderr.contains("lulld is not running"), "\(name): \(follower.stderr)")
            }
        }
    }

    /// A job's line, the count of jobs not shown, the status line, or blank.
    private static func isWatchRow(_ row: String) -> Bool {
        let trimmed = row.drop { $0 == " " }
        return trimmed.isEmpty || trimmed.first!.isNumber || trimmed.hasPrefix("… ")
    }

    @Test(.enabled(if: MockSystemBus.isAvailable, "needs dbus-daemon and python3-dbusmock"))
    func topShowsJobsHeldOnBatteryAndQuitsOnQ() async throws {
        let bus = try MockSystemBus()
        defer { bus.stop() }
        try startUPowerOnBattery(bus, percent: 18)

        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/live.tar", .init(body: TestHTTPServer.bytes(count: 6 << 20), faults: [.stallAfter(2 << 20)]))
        server.serve("/backup.tar", Array("backup\n".utf8))
        let config = "[sensors]\nbus = \"\(bus.address)\"\n[retry]\nmax_attempts = 1\n"
        try await withDaemon(config: config) { daemon, client in
            for name in ["photos", "mail", "backup"] {
                _ = try await client.submit(
                    JobSubmission(
                        kind: .fetch,
                        url: server.url("/backup.tar"),
                        destination: daemon.directory.appendingPathComponent(name).path,
                        jobClass: "background"
                    )
                )
            }
            let live = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/live.tar"),
                    destination: daemon.directory.appendingPathComponent("live.tar").path,
                    jobClass: "interactive"
                )
            )
            let broken = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/gone"),
                    destination: daemon.directory.appendingPathComponent("gone").path,
                    jobClass: "interactive"
                )
            )
            #expect(try await awaitJob(broken.id, in: [.failed], client: client).error?.code == "http_404")
            // The server stalls after 2 MiB; wait until the daemon has reported all of them.
            try await awaitEvent(client: client, "job \(live.id) at 2 MiB") {
                $0.jobId == live.id && ($0.progress?.bytesDone ?? 0) >= 2 << 20
            }

            let terminal = try TmuxSession("\(Self.lullctl) top", environment: Self.terminalEnvironment(daemon))
            defer { terminal.close() }
            let screen = try terminal.waitForScreen("the world, the held jobs, the running job and the failure") {
                screen in
                screen.contains("on battery, 18%") && screen.contains("3 queued, 3 held")
                    && screen.contains("RUNNING (1)")
                    && screen.contains("http_404")
            }
            TmuxSession.keep(screen, as: "top-on-battery.txt")
            #expect(screen.contains("background"))
            #expect(screen.contains("battery"), "the holding rule is named")
            #expect(screen.contains("2.0 MiB of 6.0 MiB") && screen.contains("33%"), "the running job's progress")
            #expect(screen.split(separator: "\n").first?.hasSuffix("q quits") == true, "header spans the 120 columns")

            // A resize redraws to the new width.
            try terminal.resize(columns: 90, rows: 30)
            try terminal.waitForScreen("the header fitted to 90 columns") { screen in
                guard let header = screen.split(separator: "\n").first else { return false }
                return header.hasSuffix("q quits") && header.count == 90
            }

            // A very narrow window still gets lines cut to its width, not wrapped: a wrapped
            // header would leave "q quits" split over two rows.
            try terminal.resize(columns: 16, rows: 30)
            try terminal.waitForScreen("the header cut to 16 columns") { screen in
                guard let header = screen.split(separator: "\n").first else { return false }
                return header.hasSuffix("q quits") && header.count == 16
            }

            try terminal.send("q")
            let after = try terminal.waitForScreen("top to quit") { $0.contains("exit=0") }
            #expect(!after.contains("RUNNING"), "the alternate screen is gone after q")

            // Told to stop from outside, top restores the screen and ends by the signal, as any
            // program would: a service manager or a script sees it was terminated. Python's
            // returncode tells a death by signal (-15) from an exit with 143, which a shell's $?
            // does not.
            for signal in [SIGTERM, SIGHUP] {
                let killed = try TmuxSession(
                    #"python3 -c 'import subprocess, sys; print("returncode=%d" % subprocess.run(sys.argv[1:]).returncode)' "#
                        + "\(Self.lullctl) top",
                    environment: Self.terminalEnvironment(daemon)
                )
                defer { killed.close() }
                try killed.waitForScreen("top to draw") { $0.contains("RUNNING (1)") }
                try killed.signalCommand(signal, named: "lullctl")
                let ended = try killed.waitForScreen("top to end by signal \(signal)") { $0.contains("returncode=") }
                #expect(ended.contains("returncode=-\(signal)"), "ended by the signal itself: \(ended)")
                #expect(!ended.contains("RUNNING"), "the alternate screen is gone: \(ended)")
            }
        }
    }
}
