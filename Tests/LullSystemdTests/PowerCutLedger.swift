import Foundation

/// What the host saw of a power-cut run — every submission announced, every acknowledgement,
/// every push and upload the guest's server received, each recorded when qemu handed it over —
/// and the checks of what each boot found against it.
struct PowerCutLedger {
    struct Intent {
        var kind: String
        /// fetch: the destination's name in /srv/dl and the served file's name; upload: the source's.
        var destination: String?
        var file: String?
    }

    struct Job {
        var id: Int64
        var label: String
        var kind: String
        var state: String
    }

    let served: [String: String]
    let sources: [String: String]
    private(set) var intents: [String: Intent] = [:]
    /// label → id, as acknowledged.
    private(set) var acknowledged: [String: Int64] = [:]
    private(set) var refusals: [String] = []
    /// label → (Idempotency-Key, outcome) for each push request; label → SHA-256 of each upload body.
    private(set) var pushes: [String: [(key: String, outcome: String)]] = [:]
    private(set) var uploads: [String: [String]] = [:]
    /// Destinations seen complete in some report: from then on they may change, never vanish.
    private(set) var seenComplete = Set<String>()
    private(set) var destinationChecks = 0
    private(set) var runningAtCuts = 0
    /// The highest event number the guest's follower read, over all boots so far, and that
    /// as it stood when the current boot reported (before its lulld numbered anything).
    private(set) var highestSeen: Int64 = 0
    private var seenBeforeThisBoot: Int64 = 0
    /// Boots whose first new event was checked against what the follower had seen.
    private(set) var numberingChecks = 0
    private(set) var numberingProblems: [String] = []

    init(served: [String: String], sources: [String: String]) {
        self.served = served
        self.sources = sources
    }

    /// An `intent`, `ack` or `refused` line from the guest's agent.
    mutating func record(agentLine line: String) {
        let words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        switch words.first {
        case "intent" where words.count >= 5:
            intents[words[1]] = Intent(
                kind: words[2],
                destination: words[3] == "-" ? nil : words[3],
                file: words[4] == "-" ? nil : words[4]
            )
        case "ack" where words.count >= 3:
            if let id = Int64(words[1]) { acknowledged[words[2]] = id }
        case "seen" where words.count == 2:
            highestSeen = max(highestSeen, Int64(words[1]) ?? 0)
        case "fresh" where words.count == 2:
            // Unsynced progress events may be lost to a cut; their numbers must not come back.
            let first = Int64(words[1]) ?? 0
            numberingChecks += 1
            if first <= seenBeforeThisBoot {
                numberingProblems.append(
                    "event \(first), the first after a cut, has a number the follower had seen (up to \(seenBeforeThisBoot))"
                )
            }
        case "refused":
            // A connection cut by the power cut is not a refusal, and the guest never sees it.
            refusals.append(line)
        default:
            break
        }
    }

    /// A line from the guest's HTTP server: `push LABEL KEY ok|refused` or `upload LABEL SHA SIZE`.
    mutating func record(serverLine line: String) {
        let words = line.split(separator: " ").map(String.init)
        if words.first == "push", words.count == 4 { pushes[words[1], default: []].append((words[2], words[3])) }
        if words.first == "upload", words.count == 4 { uploads[words[1], default: []].append(words[2]) }
    }

    static func jobs(_ rows: Any?) -> [Job] {
        ((rows as? [[Any]]) ?? []).compactMap { row in
            guard row.count >= 4, let id = (row[0] as? NSNumber)?.int64Value else { return nil }
            return Job(
                id: id,
                label: row[1] as? String ?? "",
                kind: row[2] as? String ?? "",
                state: row[3] as? String ?? ""
            )
        }
    }

    /// What one boot found before lulld ran again: problems, empty when everything holds.
    mutating func check(report: [String: Any], boot: Int) -> [String] {
        seenBeforeThisBoot = highestSeen
        var problems: [String] = []
        let integrity = report["integrity"] as? String ?? "missing"
        if integrity != "ok" && !(integrity == "none" && acknowledged.isEmpty) {
            problems.append("integrity_check: \(integrity)")
        }
        let jobs = Self.jobs(report["jobs"])
        runningAtCuts += jobs.filter { $0.state == "running" }.count
        problems += checkAcknowledged(jobs)
        let files = report["files"] as? [String: String] ?? [:]
        let staging = report["staging"] as? [String] ?? []
        problems += checkDestinations(jobs: jobs, files: files, staging: staging)
        for (name, sha) in files where served.values.contains(sha) { seenComplete.insert(name) }
        return problems.map { "boot \(boot): \($0)" }
    }

    /// Every acknowledged job is stored, once, under the id it was acknowledged with.
    func checkAcknowledged(_ jobs: [Job]) -> [String] {
        var problems: [String] = []
        let byLabel = Dictionary(grouping: jobs, by: \.label)
        for (label, id) in acknowledged.sorted(by: { $0.value < $1.value }) {
            let stored = byLabel[label] ?? []
            if stored.isEmpty {
                problems.append("acknowledged job \(id) (\(label)) is missing")
            } else if stored.count > 1 {
                problems.append("\(label) is stored \(stored.count) times: ids \(stored.map(\.id))")
            } else if stored[0].id != id {
                problems.append("\(label) acknowledged as \(id) is stored as \(stored[0].id)")
            }
        }
        return problems
    }

    /// Every destination is absent or a complete served file; a destination once complete is
    /// never gone; the newest job the store says succeeded for a destination left its file there
    /// (or a later, unfinished job's complete file) and no staging file.
    mutating func checkDestinations(jobs: [Job], files: [String: String], staging: [String]) -> [String] {
        var problems: [String] = []
        let names = Dictionary(uniqueKeysWithValues: served.map { ($0.value, $0.key) })
        for (name, sha) in files.sorted(by: { $0.key < $1.key }) {
            destinationChecks += 1
            if names[sha] == nil { problems.append("\(name) is torn: SHA-256 \(sha) is no served file") }
        }
        for name in seenComplete.sorted() where files[name] == nil {
            problems.append("\(name) was complete before this cut and is gone")
        }
        var byDestination: [String: [Job]] = [:]
        for job in jobs where job.kind == "fetch" {
            if let destination = intents[job.label]?.destination { byDestination[destination, default: []].append(job) }
        }
        for (destination, writers) in byDestination.sorted(by: { $0.key < $1.key }) {
            guard let last = writers.filter({ $0.state == "succeeded" }).max(by: { $0.id < $1.id }) else { continue }
            let allowed = Set(
                writers.filter { $0.id >= last.id }.compactMap { intents[$0.label]?.file.flatMap { served[$0] } }
            )
            guard let sha = files[destination] else {
                problems.append("job \(last.id) (\(last.label)) succeeded but \(destination) is missing")
                continue
            }
            if !allowed.contains(sha) {
                let what = names[sha] ?? "torn"
                problems.append(
                    "job \(last.id) (\(last.label)) succeeded fetching \(intents[last.label]?.file ?? "?") but \(destination) holds \(what)"
                )
            }
            if staging.contains(".\(destination).lull-\(last.id).part") {
                problems.append(
                    "job \(last.id) succeeded but its staging file .\(destination).lull-\(last.id).part is still there"
                )
            }
        }
        return problems
    }

    /// The end: every acknowledged job succeeded, every destination holds its newest job's file,
    /// no staging file is left, every push carried one key, every upload's last body is its source.
    func checkFinal(_ final: [String: Any]) -> [String] {
        var problems: [String] = []
        if (final["integrity"] as? String) != "ok" {
            problems.append("integrity_check after a clean stop: \(final["integrity"] ?? "?")")
        }
        if (final["stop"] as? NSNumber)?.intValue != 0 { problems.append("systemctl stop lulld failed") }
        let rows = (final["jobs"] as? [[Any]]) ?? []
        let jobs = Self.jobs(rows)
        problems += checkAcknowledged(jobs)
        for (row, job) in zip(rows, jobs) where acknowledged[job.label] != nil && job.state != "succeeded" {
            problems.append("\(job.label) (\(job.kind)) ended \(job.state): \(row.count > 4 ? "\(row[4])" : "")")
        }
        let files = final["files"] as? [String: String] ?? [:]
        let staging = final["staging"] as? [String] ?? []
        if !staging.isEmpty { problems.append("staging files left: \(staging)") }
        var newest: [String: Job] = [:]
        for job in jobs where job.kind == "fetch" && job.state == "succeeded" {
            guard let destination = intents[job.label]?.destination else { continue }
            if (newest[destination]?.id ?? -1) < job.id { newest[destination] = job }
        }
        for (destination, job) in newest.sorted(by: { $0.key < $1.key }) {
            let expected = intents[job.label]?.file.flatMap { served[$0] }
            if files[destination] != expected {
                problems.append("\(destination) should hold \(job.label)'s \(intents[job.label]?.file ?? "?")")
            }
        }
        for job in jobs where acknowledged[job.label] != nil && job.state == "succeeded" {
            if job.kind == "push" {
                let requests = pushes[job.label] ?? []
                let keys = Set(requests.map(\.key))
                if !requests.contains(where: { $0.outcome == "ok" }) || keys.count != 1 {
                    problems.append("push \(job.label): \(requests.count) requests with keys \(keys.sorted())")
                }
            }
            if job.kind == "upload" {
                let expected = intents[job.label]?.file.flatMap { sources[$0] }
                if uploads[job.label]?.last != expected {
                    problems.append("upload \(job.label): the server's last body is not its source")
                }
            }
        }
        return problems
    }
}
