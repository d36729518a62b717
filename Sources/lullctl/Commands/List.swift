import ArgumentParser
import Foundation
import LullAPI
import LullClient

#if canImport(Glibc)
import Glibc
#endif

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List jobs, oldest first.")

    @Option(
        name: .long,
        help: "Only jobs in this state (queued, running, paused, succeeded, failed, cancelled, expired)."
    )
    var state: String?

    @Option(name: .long, help: "Only jobs with this label.")
    var label: String?

    @Option(name: .customLong("class"), help: "Only jobs of this class.")
    var jobClass: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Only jobs of this user, by name or uid. Root may name anyone; other users only themselves (they see only their own jobs anyway).",
            valueName: "name|uid"
        )
    )
    var owner: String?

    @Option(name: .long, help: "At most this many jobs (1-1000).")
    var limit: Int = Self.defaultLimit

    @Option(name: .long, help: "Start after this job id (paging).")
    var after: Int64?

    @Flag(name: .long, help: "Follow pages until every matching job is listed.")
    var all = false

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var format: OutputOptions

    func validate() throws {
        if let owner, UserNames.uid(of: owner) == nil {
            throw ValidationError("--owner \(owner): no such user on this machine; give a user name or a numeric uid")
        }
    }

    func run() async throws {
        let ownerUID = owner.flatMap(UserNames.uid)
        let (jobs, next) = try await connection.withClient { client -> ([JobView], Int64?) in
            if all {
                return (
                    try await client.allJobs(
                        state: state,
                        label: label,
                        jobClass: jobClass,
                        after: after,
                        pageSize: limit,
                        owner: ownerUID
                    ), nil
                )
            }
            let page = try await client.list(
                state: state,
                label: label,
                jobClass: jobClass,
                limit: limit,
                after: after,
                owner: ownerUID
            )
            return (page.jobs, page.nextAfter)
        }
        if format.json {
            try printJSON(JobListView(jobs: jobs, nextAfter: next))
            return
        }
        guard !jobs.isEmpty else {
            print("no jobs")
            return
        }
        // Root sees every owner's jobs, so whose each is matters; a user sees only their own.
        let showOwner = getuid() == 0 || Set(jobs.map(\.ownerUid)).count > 1
        var table = Table("ID", "STATE", "KIND", "CLASS", "LABEL", "PROGRESS", "UPDATED", "TARGET")
        if showOwner { table.headers.insert("OWNER", at: 1) }
        var names: [UInt32: String] = [:]
        for job in jobs {
            var cells = [
                String(job.id), job.state.rawValue, job.kind.rawValue, job.jobClass, job.label ?? "-",
                Format.progress(job), Format.relative(job.updatedAt), Format.target(job),
            ]
            if showOwner {
                let name = names[job.ownerUid] ?? UserNames.name(of: job.ownerUid)
                names[job.ownerUid] = name
                cells.insert(name, at: 1)
            }
            table.rows.append(cells)
        }
        print(table.render())
        if let next { print("more: \(nextPageCommand(after: next))") }
    }

    /// The command for the next page: the same filters and page size (and socket, when given),
    /// or it would page through other jobs, or another daemon's.
    func nextPageCommand(after next: Int64) -> String {
        var words = ["lullctl list"]
        // A value that starts with '-' was given as --name=VALUE, or it would read as an option.
        func option(_ name: String, _ value: String?) {
            guard let value else { return }
            words.append(
                value.hasPrefix("-") ? "--\(name)=\(Self.shellQuoted(value))" : "--\(name) \(Self.shellQuoted(value))"
            )
        }
        option("state", state)
        option("label", label)
        option("class", jobClass)
        option("owner", owner)
        option("limit", limit == Self.defaultLimit ? nil : String(limit))
        option("after", String(next))
        option("socket", connection.socket)
        if connection.system { words.append("--system") }
        if connection.userInstance { words.append("--user-instance") }
        return words.joined(separator: " ")
    }

    static let defaultLimit = 100

    /// `word` as one POSIX shell word: unchanged when no character is special to the shell,
    /// else in single quotes (inside which only `'` itself needs care).
    static func shellQuoted(_ word: String) -> String {
        let plain =
            !word.isEmpty
            && word.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "@%+=:,./_-".unicodeScalars.contains($0))
            }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
