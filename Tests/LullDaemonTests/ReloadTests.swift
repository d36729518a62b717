import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

@Suite struct ReloadTests {
    /// SIGHUP swaps the policy: a class held at max_concurrent = 0 is released by a reload; a
    /// broken file is refused and the running policy stays.
    @Test func sighupSwapsThePolicyAndABrokenFileKeepsTheOldOne() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.serve("/r", Array("reloaded\n".utf8))
        try await withDaemon(config: "[classes.utility]\nmax_concurrent = 0\n") { daemon, client in
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/r"),
                    destination: daemon.directory.appendingPathComponent("r").path,
                    jobClass: "utility"
                )
            )
            #expect(try await client.explain(job.id).reasons.map(\.code) == ["class_full"])

            // A broken file: the daemon keeps serving on the old policy.
            try "[classes.utility]\nmax_concurrent = \"many\"\n".write(
                toFile: daemon.configPath,
                atomically: true,
                encoding: .utf8
            )
            daemon.reload()
            try await awaitLog(daemon, "reload refused")
            #expect(try await client.status().pid == daemon.pid)
            #expect(try await client.job(job.id).state == .queued)
            #expect(daemon.log().contains("\(daemon.configPath):2: classes.utility.max_concurrent"))

            // A good file: the held job is released by the reload alone.
            try "[classes.utility]\nmax_concurrent = 2\n".write(
                toFile: daemon.configPath,
                atomically: true,
                encoding: .utf8
            )
            daemon.reload()
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded)
            #expect(daemon.log().contains("policy reloaded"))
        }
    }

    /// A daemon started on embedded defaults (no config file yet where it looks) reads the
    /// user's config file on SIGHUP once it has been written, as an admin following the guide
    /// expects, instead of needing a restart.
    @Test func sighupOnEmbeddedDefaultsReadsAConfigFileWrittenSince() async throws {
        try await withTemporaryDirectory("config-home") { home in try await reloadFindsTheFile(configHome: home) }
    }

    private func reloadFindsTheFile(configHome home: String) async throws {
        let daemon = try DaemonProcess(realPressure: true, environment: ["XDG_CONFIG_HOME": home])
        defer { daemon.remove() }
        try daemon.start()
        let client = LullClient(socketPath: daemon.socketPath)
        defer { Task { await client.shutdown() } }
        let photos = JobSubmission(
            kind: .fetch,
            url: "http://127.0.0.1:9/p",
            destination: daemon.directory.appendingPathComponent("p").path,
            jobClass: "photos"
        )
        do {
            _ = try await client.submit(photos)
            Issue.record("the class is not defined yet")
        } catch LullClientError.api(let status, let detail) {
            #expect(status == 400 && detail.field == "class")
        }

        let file = home + "/lull/lull.toml"
        try FileManager.default.createDirectory(atPath: home + "/lull", withIntermediateDirectories: true)
        try "[classes.photos]\nmax_concurrent = 0\n".write(toFile: file, atomically: true, encoding: .utf8)
        daemon.reload()
        try await awaitLog(daemon, "policy reloaded")
        #expect(daemon.log().contains(file))
        let job = try await client.submit(photos)
        #expect(job.jobClass == "photos")
    }

    /// The limits a reload changes are the limits the daemon then enforces and reports: the
    /// request size the server reads and the concurrency `status` shows.
    @Test func sighupChangesTheLimitsThatAreEnforcedAndShown() async throws {
        try await withDaemon(config: "[limits]\nmax_concurrent = 0\nmax_request_bytes = 4096\n") { daemon, client in
            let padded = JobSubmission(
                kind: .fetch,
                url: "http://127.0.0.1:9/" + String(repeating: "a", count: 4500),
                destination: daemon.directory.appendingPathComponent("p").path
            )
            await #expect(throws: LullClientError.self) { try await client.submit(padded) }
            #expect(try await client.status().limits.maxConcurrent == 0)

            try "[limits]\nmax_concurrent = 3\nmax_request_bytes = 65536\n".write(
                toFile: daemon.configPath,
                atomically: true,
                encoding: .utf8
            )
            daemon.reload()
            try await awaitLog(daemon, "policy reloaded")
            let limits = try await client.status().limits
            #expect(limits.maxRequestBytes == 65536 && limits.maxConcurrent == 3)
            let job = try await client.submit(padded)
            #expect(job.url.count > 4500)
        }
    }
}

@Suite struct ConfigLogTests {
    /// The messages themselves (what `journalctl -u lulld` and `systemctl status` show, without
    /// the fields) name the files read at start and on a reload, and a refused reload's file:line.
    @Test func startAndReloadNameTheFilesInTheMessage() async throws {
        let daemon = try DaemonProcess(config: "[classes.utility]\nmax_concurrent = 1\n")
        defer { daemon.remove() }
        let dropIns = daemon.directory.appendingPathComponent("lull.d")
        try FileManager.default.createDirectory(at: dropIns, withIntermediateDirectories: true)
        let dropIn = dropIns.appendingPathComponent("50-lte.toml").path
        try "[classes.lte]\nmax_concurrent = 1\n".write(toFile: dropIn, atomically: true, encoding: .utf8)
        try daemon.start()
        defer { _ = daemon.stop() }
        #expect(daemon.log().contains("lulld ready: config \(daemon.configPath), \(dropIn);"), "\(daemon.log())")

        try "[classes.utility]\nmaxconcurrent = 2\n".write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        daemon.reload()
        try await awaitLog(daemon, "reload refused")
        let refusal = "reload refused: \(daemon.configPath):2: classes.utility.maxconcurrent"
        #expect(daemon.log().contains(refusal), "\(daemon.log())")
        #expect(daemon.log().contains("; keeping the old policy"))

        try "[classes.utility]\nmax_concurrent = 2\n".write(
            toFile: daemon.configPath,
            atomically: true,
            encoding: .utf8
        )
        daemon.reload()
        try await awaitLog(daemon, "policy reloaded from \(daemon.configPath), \(dropIn): ")
    }

    /// Without a config file the start-up message says so, and where lulld looked.
    @Test func startOnEmbeddedDefaultsSaysWhereItLooked() async throws {
        try await withTemporaryDirectory("config-home") { home in
            let daemon = try DaemonProcess(realPressure: true, environment: ["XDG_CONFIG_HOME": home])
            defer { daemon.remove() }
            try daemon.start()
            defer { _ = daemon.stop() }
            let expected = "lulld ready: no config file; embedded defaults (looked for \(home)/lull/lull.toml)"
            #expect(daemon.log().contains(expected), "\(daemon.log())")
        }
    }
}

/// Waits (bounded) until the daemon's log contains `text`.
func awaitLog(_ daemon: DaemonProcess, _ text: String, timeout: Duration = .seconds(20)) async throws {
    let deadline = ContinuousClock.now + timeout
    while !daemon.log().contains(text) {
        guard ContinuousClock.now < deadline else {
            throw TimedOut(description: "no \"\(text)\" in the daemon's log within \(timeout)")
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}
