import Foundation
import LullAPI
import LullClient
import LullTestSupport
import Testing

/// Mistakes that can be seen at submission are answered then, naming the missing part, instead
/// of after a download: an upload's source that does not exist, a fetch into a directory that
/// does not exist or that the owner may not write, over a file the owner may not replace.
@Suite(.timeLimit(.minutes(2)))
struct SubmissionPathCheckTests {
    func refusal(_ submission: JobSubmission, _ client: LullClient) async throws -> APIErrorBody.Detail? {
        do {
            _ = try await client.submit(submission)
            return nil
        } catch LullClientError.api(let status, let detail) {
            #expect(status == 400)
            return detail
        }
    }

    /// In-process: the checks are the route's, made with the peer's rights.
    @Test func missingFilesAndDirectoriesAreNamedAtSubmission() async throws {
        try await withInProcessDaemon(config: holdEverything) { daemon, client in
            let directory = daemon.directory.path
            let upload = try await refusal(
                JobSubmission(kind: .upload, url: "http://127.0.0.1:9/u", source: directory + "/no-such-report.csv"),
                client
            )
            #expect(upload?.field == "source")
            #expect(
                upload?.message == "source \(directory)/no-such-report.csv does not exist",
                "\(String(describing: upload))"
            )

            let fetch = try await refusal(
                JobSubmission(
                    kind: .fetch,
                    url: "http://127.0.0.1:9/f",
                    destination: directory + "/not-made-yet/f.bin"
                ),
                client
            )
            #expect(fetch?.field == "destination")
            #expect(fetch?.message == "directory \(directory)/not-made-yet does not exist; create it first")

            let intoDirectory = try await refusal(
                JobSubmission(kind: .fetch, url: "http://127.0.0.1:9/f", destination: directory),
                client
            )
            #expect(intoDirectory?.message.contains("is a directory; give a path to a file inside it") == true)

            let notAFile = try await refusal(
                JobSubmission(kind: .upload, url: "http://127.0.0.1:9/u", source: directory),
                client
            )
            #expect(notAFile?.message.contains("is not a regular file") == true)

            // In a batch, the refusal names the job.
            do {
                _ = try await client.submit(batch: [
                    JobSubmission(kind: .fetch, url: "http://127.0.0.1:9/a", destination: directory + "/a.bin"),
                    JobSubmission(kind: .fetch, url: "http://127.0.0.1:9/b", destination: directory + "/nope/b.bin"),
                ])
                Issue.record("a batch with a missing directory was accepted")
            } catch LullClientError.api(_, let detail) {
                #expect(detail.field == "jobs[1].destination", "\(detail)")
            }
            // The paths of a batch are checked together, but its first problem in the order of
            // the jobs is the one named, whether of the paths or of the rest of the job.
            let missing = JobSubmission(kind: .fetch, url: "http://127.0.0.1:9/m", destination: directory + "/nope/m")
            let badURL = JobSubmission(kind: .fetch, url: "gopher://127.0.0.1/b", destination: directory + "/b.bin")
            for (jobs, field) in [([missing, badURL], "jobs[0].destination"), ([badURL, missing], "jobs[0].url")] {
                do {
                    _ = try await client.submit(batch: jobs)
                    Issue.record("a batch with a missing directory and a bad URL was accepted")
                } catch LullClientError.api(_, let detail) {
                    #expect(detail.field == field, "\(detail)")
                }
            }
            #expect(try await client.list().jobs.isEmpty, "nothing of the refused batch was stored")
        }
    }

    /// Single submissions that arrive together, each checked on the thread pool while the others
    /// are: each gets its own answer, and only the refused are left out of the store.
    @Test func submissionsArrivingTogetherEachGetTheirOwnPathCheck() async throws {
        try await withInProcessDaemon(config: holdEverything) { daemon, client in
            let directory = daemon.directory.path
            let count = 24
            // Every third goes into a directory that does not exist, named after its index.
            func destination(_ index: Int) -> String {
                index % 3 == 0 ? "\(directory)/missing-\(index)/f.bin" : "\(directory)/f\(index).bin"
            }
            let answers = try await withThrowingTaskGroup(of: (Int, APIErrorBody.Detail?).self) { group in
                for index in 0..<count {
                    group.addTask {
                        let submission = JobSubmission(
                            kind: .fetch,
                            url: "http://127.0.0.1:9/\(index)",
                            destination: destination(index)
                        )
                        return (index, try await refusal(submission, client))
                    }
                }
                return try await group.reduce(into: [Int: APIErrorBody.Detail?]()) { $0[$1.0] = $1.1 }
            }
            for index in 0..<count {
                let answer = answers[index] ?? nil
                if index % 3 == 0 {
                    #expect(answer?.field == "destination")
                    #expect(
                        answer?.message == "directory \(directory)/missing-\(index) does not exist; create it first",
                        "\(String(describing: answer))"
                    )
                } else {
                    #expect(answer == nil, "job \(index) was refused: \(String(describing: answer))")
                }
            }
            let stored = try await client.list().jobs.compactMap(\.destination)
            #expect(Set(stored) == Set((0..<count).filter { $0 % 3 != 0 }.map(destination)))
        }
    }

    @Test(
        .enabled(
            if: getuid() == 0 && FileManager.default.fileExists(atPath: "/usr/bin/setpriv"),
            "needs root and setpriv"
        )
    )
    func theOwnersRightsDecide() async throws {
        try await withDaemon(config: holdEverything + "\n[daemon]\nsocket_mode = \"0666\"\n") { daemon, _ in
            let nobody = [
                "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--",
                DaemonProcess.binary("lullctl"),
            ]
            let socket = ["--socket", daemon.socketPath]
            // daemon.directory is root's, 0755: nobody may read in it but not write.
            let rootsDirectory = daemon.directory.path
            let refused = try CommandRunner.run(
                nobody[0],
                Array(nobody.dropFirst()) + [
                    "submit", "fetch", "http://127.0.0.1:9/f", "-o", rootsDirectory + "/f.bin",
                ] + socket
            )
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("you may not write into directory \(rootsDirectory)"), "\(refused.stderr)")

            // A sticky directory: a file root owns there cannot be replaced by nobody.
            let sticky = daemon.directory.appendingPathComponent("shared").path
            try FileManager.default.createDirectory(atPath: sticky, withIntermediateDirectories: true)
            chmod(sticky, 0o1777)
            _ = FileManager.default.createFile(atPath: sticky + "/roots.txt", contents: Data("root's\n".utf8))
            let replace = try CommandRunner.run(
                nobody[0],
                Array(nobody.dropFirst()) + ["submit", "fetch", "http://127.0.0.1:9/f", "-o", sticky + "/roots.txt"]
                    + socket
            )
            #expect(replace.stderr.contains("belongs to uid 0 in the sticky directory"), "\(replace.stderr)")
            let fresh = try CommandRunner.run(
                nobody[0],
                Array(nobody.dropFirst()) + ["submit", "fetch", "http://127.0.0.1:9/f", "-o", sticky + "/mine.txt"]
                    + socket
            )
            #expect(fresh.status == 0, "\(fresh.stderr)")

            // Root's own file is readable to root but not to nobody.
            let secret = daemon.directory.appendingPathComponent("secret.txt").path
            _ = FileManager.default.createFile(
                atPath: secret,
                contents: Data("s\n".utf8),
                attributes: [.posixPermissions: 0o600]
            )
            let upload = try CommandRunner.run(
                nobody[0],
                Array(nobody.dropFirst()) + ["submit", "upload", "http://127.0.0.1:9/u", "-f", secret] + socket
            )
            #expect(upload.stderr.contains("you may not read source \(secret)"), "\(upload.stderr)")
        }
    }
}
