import LullAPI

/// The queue by class: how many wait, how many are held by a rule, and which rules hold them.
struct QueueSummary {
    struct ClassLine {
        var jobClass: String
        var queued: Int
        var held: Int
        /// Each holding rule once, with how many jobs it holds, most common first.
        var reasons: [(text: String, count: Int)]
    }

    var classes: [ClassLine]

    init(_ queued: [JobView]) {
        var byClass: [String: [JobView]] = [:]
        for job in queued { byClass[job.jobClass, default: []].append(job) }
        classes = byClass.keys.sorted().map { name in
            let jobs = byClass[name] ?? []
            var counts: [String: (text: String, count: Int)] = [:]
            var order: [String] = []
            for reason in jobs.flatMap({ $0.waitingFor ?? [] }) {
                if counts[reason.code] == nil { order.append(reason.code) }
                counts[reason.code, default: (reason.text, 0)].count += 1
            }
            let reasons = order.compactMap { counts[$0] }.sorted { $0.count > $1.count }
            return ClassLine(
                jobClass: name, queued: jobs.count, held: jobs.filter { !($0.waitingFor ?? []).isEmpty }.count,
                reasons: reasons)
        }
    }

    var held: Int { classes.reduce(0) { $0 + $1.held } }
}
