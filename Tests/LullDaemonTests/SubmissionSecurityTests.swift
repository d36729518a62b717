import Foundation
import LullAPI
import LullClient
import LullCore
import LullStore
import LullTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a careless or hostile local user found (issue 29, security): passwords in URLs, forged
/// log lines, a store others could read.
@Suite(.timeLimit(.minutes(2)))
struct SubmissionSecurityTests {
    /// A URL's credentials would be shown in every view and log line and were never sent:
    /// such a URL is refused, and `--user` sends them as Basic authentication, shown nowhere.
    @Test func credentialsTravelInAHeaderAndAreShownNowhere() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.serve("/f", Array("members only\n".utf8))
        try await withDaemon { daemon, client in
            let lullctl = DaemonProcess.binary("lullctl")
            let destination = daemon.directory.appendingPathComponent("f.txt").path
            let withPassword = server.url("/f").replacingOccurrences(of: "http://", with: "http://alice:S3cret@")
            let refused = try CommandRunner.run(
                lullctl,
                ["submit", "fetch", withPassword, "-o", destination, "--socket", daemon.socketPath]
            )
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("--user alice:PASSWORD"), "\(refused.stderr)")
            #expect(!refused.stderr.contains("S3cret"))

            let submitted = try CommandRunner.run(
                lullctl,
                [
                    "submit", "fetch", server.url("/f"), "-o", destination, "--user", "alice:S3cret", "--json",
                    "--socket", daemon.socketPath,
                ]
            )
            #expect(submitted.status == 0, "\(submitted.stderr)")
            let job = try WireJSON.decoder().decode(JobView.self, from: Data(submitted.stdout.utf8))
            #expect(try await awaitJob(job.id, in: [.succeeded, .failed], client: client).state == .succeeded)
            let sent = server.requests.filter { $0.uri == "/f" }.compactMap { $0.header("authorization") }
            #expect(sent == ["Basic " + Data("alice:S3cret".utf8).base64EncodedString()])

            // A name alone takes the password from LULL_PASSWORD, keeping it out of the process list.
            let fromEnvironment = try CommandRunner.run(
                lullctl,
                [
                    "submit", "fetch", server.url("/f"), "-o", destination + ".2", "--user", "alice", "--json",
                    "--socket", daemon.socketPath,
                ],
                environment: ProcessInfo.processInfo.environment.merging(["LULL_PASSWORD": "S3cret"]) { $1 }
            )
            #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
            let second = try WireJSON.decoder().decode(JobView.self, from: Data(fromEnvironment.stdout.utf8))
            #expect(try await awaitJob(second.id, in: [.succeeded, .failed], client: client).state == .succeeded)
            let sentTwice = server.requests.filter { $0.uri == "/f" }.compactMap { $0.header("authorization") }
            #expect(sentTwice == Array(repeating: "Basic " + Data("alice:S3cret".utf8).base64EncodedString(), count: 2))

            var seen = submitted.stdout + daemon.log()
            for arguments in [
                ["show", "\(job.id)"], ["show", "\(job.id)", "--json"], ["events", "--json"], ["list", "--json"],
            ] {
                seen += try CommandRunner.run(lullctl, arguments + ["--socket", daemon.socketPath]).stdout
            }
            #expect(!seen.contains("S3cret") && !seen.contains(Data("alice:S3cret".utf8).base64EncodedString()))
        }
    }

    /// Control characters are refused at submission, naming the field; text that reaches a log
    /// line anyway (here a job stored by an older version) is escaped, so it cannot start a
    /// record of its own.
    @Test func nobodyCanForgeTheDaemonsLog() async throws {
        let daemon = try DaemonProcess(config: fastRetries)
        defer { daemon.remove() }
        try daemon.start()
        let client = LullClient(socketPath: daemon.socketPath)
        defer { Task { await client.shutdown() } }
        let forged = "x\nnotice lulld: forged record"
        let destination = daemon.directory.appendingPathComponent("a").path
        for (submission, field) in [
            (JobSubmission(kind: .fetch, url: "http://127.0.0.1:9/" + forged, destination: destination), "url"),
            (
                JobSubmission(
                    kind: .fetch,
                    url: "http://127.0.0.1:9/a",
                    destination: destination,
                    label: "\u{1B}]0;owned\u{7}"
                ), "label"
            ),
            (
                JobSubmission(kind: .fetch, url: "http://127.0.0.1:9/a", destination: destination + "\u{0}b"),
                "destination"
            ),
            (
                JobSubmission(kind: .push, url: "http://127.0.0.1:9/a", headers: ["X-Note": forged], body: "{}"),
                "headers"
            ),
        ] {
            do {
                _ = try await client.submit(submission)
                Issue.record("a \(field) with a control character was accepted")
            } catch LullClientError.api(let status, let detail) {
                #expect(status == 400 && detail.field == field, "\(detail)")
                #expect(detail.message.contains("control character"), "\(detail.message)")
            }
        }

        // A job stored before the rule, whose URL the daemon logs when it starts it.
        #expect(daemon.stop() == 0)
        let store = try SQLiteJobStore(path: daemon.stateDirectory + "/lull.sqlite")
        let stored = try await store.insert([
            NewJob(
                owner: OwnerID(getuid()),
                spec: JobSpec(.fetch(FetchJob(url: "http://127.0.0.1:9/" + forged, destination: destination))),
                createdAt: Date()
            )
        ])
        try daemon.start()
        _ = try await awaitEvent(client: client, "job \(stored[0].id) started") {
            $0.jobId == stored[0].id.rawValue && $0.state == .running
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while !daemon.log().contains("job \(stored[0].id) started"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let log = daemon.log()
        #expect(log.contains("x\\nnotice lulld: forged record"), "the URL reached the log escaped:\n\(log)")
        #expect(!log.split(separator: "\n").contains { $0.hasPrefix("notice lulld: forged") }, "\(log)")
    }

    /// lulld refuses to start, with exit status 3 (the units do not restart on it), saying `text`.
    static func expectRefusedStart(_ daemon: DaemonProcess, saying text: String) {
        do {
            try daemon.start(timeout: .seconds(10))
            Issue.record("lulld started; expected a refusal saying \(text)")
        } catch DaemonProcessError.exited(let status, let log) {
            #expect(status == 3, "exit status \(status)")
            #expect(log.contains(text), "\(log)")
        } catch {
            Issue.record("\(error)")
        }
    }

    /// The store holds other users' tokens: 0600 files in a 0700 directory whatever the umask,
    /// a start refused when others could enter the directory, and wider files from an older
    /// version narrowed.
    @Test func theStoreIsTheDaemonsAloneWhateverTheUmask() async throws {
        let daemon = try DaemonProcess(
            config: holdEverything,
            launcher: ["/bin/sh", "-c", "umask 000; exec \"$0\" \"$@\""]
        )
        defer { daemon.remove() }
        try daemon.start()
        let client = LullClient(socketPath: daemon.socketPath)
        defer { Task { await client.shutdown() } }
        _ = try await client.submit(
            JobSubmission(
                kind: .push,
                url: "http://127.0.0.1:9/p",
                headers: ["Authorization": "Bearer secret-token"],
                body: "{}"
            )
        )
        let state = daemon.stateDirectory
        #expect(FileModeTests.mode(of: state) == 0o700)
        for file in ["lull.sqlite", "lull.sqlite-wal", "lull.sqlite-shm", "lulld.lock"] {
            #expect(FileModeTests.mode(of: state + "/" + file) == 0o600, "\(file)")
        }
        #expect(try await client.status().stateDirMode == "0700")
        #expect(daemon.stop() == 0)

        chmod(state, 0o755)
        Self.expectRefusedStart(daemon, saying: "state directory \(state) is mode 0755: every user may enter it")
        #expect(daemon.log().contains("chmod 700 \(state)"))

        // A 0700 directory that another uid owns: its owner could swap the store's files.
        if getuid() == 0 {
            chmod(state, 0o700)
            chown(state, 65534, 65534)
            Self.expectRefusedStart(daemon, saying: "state directory \(state) belongs to uid 65534")
            chown(state, 0, 0)
        }

        chmod(state, 0o700)
        chmod(state + "/lull.sqlite", 0o644)
        try daemon.start()
        #expect(FileModeTests.mode(of: state + "/lull.sqlite") == 0o600)
        #expect(daemon.log().contains("store file was readable by others; made it 0600"))
    }
}
