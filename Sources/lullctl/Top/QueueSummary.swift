import Foundation
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
            var groups: [String: [WaitingReasonView]] = [:]
            var order: [String] = []
            for reason in jobs.flatMap({ $0.waitingFor ?? [] }) {
                if groups[reason.code] == nil { order.append(reason.code) }
                groups[reason.code, default: []].append(reason)
            }
            let reasons = order.compactMap { groups[$0].map(Self.summary) }.sorted { $0.count > $1.count }
            return ClassLine(
                jobClass: name,
                queued: jobs.count,
                held: jobs.filter { !($0.waitingFor ?? []).isEmpty }.count,
                reasons: reasons
            )
        }
    }

    var held: Int { classes.reduce(0) { $0 + $1.held } }

    /// One rule over the jobs it holds. When they differ (two not_before times), the first
    /// job's words would misstate the others: the rule and its earliest time instead.
    static func summary(_ reasons: [WaitingReasonView]) -> (text: String, count: Int) {
        let first = reasons[0]
        guard reasons.contains(where: { $0.text != first.text }) else { return (Format.reason(first), reasons.count) }
        let earliest = reasons.compactMap(\.until).min()
        return (first.code + (earliest.map { ", the first until " + Format.time($0) } ?? ""), reasons.count)
    }
}
