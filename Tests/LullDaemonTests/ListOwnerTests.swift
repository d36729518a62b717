import Foundation
import LullAPI
import LullClient
import LullTestSupport
import Testing

/// `GET /v1/jobs?owner=UID` and `lullctl list --owner` / the OWNER column, with a second uid
/// for real (lullctl run as 65534 through setpriv).
@Suite(
    .enabled(if: getuid() == 0 && FileManager.default.fileExists(atPath: "/usr/bin/setpriv"), "needs root and setpriv")
)
struct ListOwnerTests {
    let ownership = OwnershipTests()

    func asRoot(_ arguments: [String]) throws -> CommandResult {
        try CommandRunner.run(DaemonProcess.binary("lullctl"), arguments)
    }

    @Test func rootFiltersByOwnerAndSeesWhoseEachJobIs() async throws {
        let config = holdEverything + "\n[daemon]\nsocket_mode = \"0666\"\n"
        try await withDaemon(config: config) { daemon, client in
            let socket = ["--socket", daemon.socketPath]
            let mine = try await client.submit(
                JobSubmission(kind: .fetch, url: "http://127.0.0.1/a", destination: "/tmp/a")
            )
            let submitted = try ownership.asNobody(
                [
                    "submit", "fetch", "http://127.0.0.1/b", "-o", "/tmp/lull-owner-\(UUID().uuidString.prefix(8))",
                    "--json",
                ] + socket
            )
            #expect(submitted.status == 0, "\(submitted.stderr)")
            let theirs = try WireJSON.decoder().decode(JobView.self, from: Data(submitted.stdout.utf8))
            let nobodyName = getpwuid(65534).map { String(cString: $0.pointee.pw_name) } ?? "65534"

            // The API: root names any owner; the listing holds that owner's jobs only.
            #expect(try await client.list(owner: 65534).jobs.map(\.id) == [theirs.id])
            #expect(try await client.list(owner: 0).jobs.map(\.id) == [mine.id])

            // lullctl as root: the OWNER column, with the user name; --owner by name or uid.
            let all = try asRoot(["list"] + socket)
            #expect(all.status == 0, "\(all.stderr)")
            let header = all.stdout.split(separator: "\n").first.map(String.init) ?? ""
            #expect(header.hasPrefix("ID") && header.contains("OWNER"), "\(all.stdout)")
            #expect(all.stdout.contains(" root ") && all.stdout.contains(" \(nobodyName) "), "\(all.stdout)")
            for value in [nobodyName, "65534"] {
                let filtered = try asRoot(["list", "--owner", value, "--json"] + socket)
                #expect(filtered.status == 0, "\(filtered.stderr)")
                let ids = try WireJSON.decoder().decode(JobListView.self, from: Data(filtered.stdout.utf8)).jobs.map(
                    \.id
                )
                #expect(ids == [theirs.id], "--owner \(value)")
            }
            let unknown = try asRoot(["list", "--owner", "no-such-user-lull"] + socket)
            #expect(unknown.status != 0 && unknown.stderr.contains("no such user"), "\(unknown.stderr)")

            // Another user: no OWNER column for their own jobs, their own uid is allowed, another is 403.
            let own = try ownership.asNobody(["list"] + socket)
            #expect(own.status == 0 && !own.stdout.contains("OWNER"), "\(own.stdout)")
            let ownByUID = try ownership.asNobody(["list", "--owner", "65534", "--json"] + socket)
            #expect(
                try WireJSON.decoder().decode(JobListView.self, from: Data(ownByUID.stdout.utf8)).jobs.map(\.id) == [
                    theirs.id
                ]
            )
            let others = try ownership.asNobody(["list", "--owner", "root"] + socket)
            #expect(
                others.status != 0 && others.stderr.contains("only root may list another user's jobs"),
                "\(others.stderr)"
            )
        }
    }
}
