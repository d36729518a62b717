import ArgumentParser
import LullAPI
import LullClient

struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one job in full.")

    @Argument(help: "The job id.")
    var id: Int64

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var format: OutputOptions

    func run() async throws {
        let job = try await connection.withClient { try await $0.job(id) }
        if format.json {
            try printJSON(job)
        } else {
            print(describe(job))
        }
    }
}

/// The multi-line view of a job used by show and by the job commands.
func describe(_ job: JobView) -> String {
    var lines: [(String, String)] = [
        ("id", String(job.id)), ("state", job.state.rawValue), ("kind", job.kind.rawValue),
        ("class", job.jobClass),
    ]
    if !job.url.isEmpty { lines.append(("url", job.url)) }
    lines += runLines(job)
    if let destination = job.destination { lines.append(("destination", destination)) }
    if let source = job.source { lines.append(("source", source)) }
    if let label = job.label { lines.append(("label", label)) }
    lines.append(("owner uid", String(job.ownerUid)))
    lines.append(("created", Format.time(job.createdAt)))
    lines.append(("updated", Format.time(job.updatedAt)))
    lines.append(("attempts", String(job.attempts)))
    if let stops = Format.stops(job) { lines.append(("stops", stops)) }
    if job.progress != nil { lines.append(("progress", Format.progress(job))) }
    if let result = job.result {
        if let status = result.httpStatus { lines.append(("http status", String(status))) }
        if let bytes = result.bytes { lines.append(("bytes", "\(Format.bytes(bytes)) (\(bytes))")) }
        if let sha = result.sha256 { lines.append(("sha256", sha)) }
        if let uploadURL = result.uploadURL { lines.append(("upload url", uploadURL)) }
        if let body = result.responseBody { lines.append(("response", Format.excerpt(body, limit: 1024))) }
        lines += runResultLines(result, id: job.id)
    }
    if let sha = job.sha256 { lines.append(("expected sha256", sha)) }
    if let size = job.expectedBytes { lines.append(("expected size", "\(Format.bytes(size)) (\(size))")) }
    if let mode = job.mode { lines.append(("mode", mode)) }
    if let size = job.maxBytes { lines.append(("size limit", "\(Format.bytes(size)) (\(size))")) }
    if let uploadProtocol = job.uploadProtocol { lines.append(("protocol", uploadProtocol.rawValue)) }
    if let retry = job.retry { lines.append(("retries", Format.retry(retry))) }
    if let timeouts = job.timeouts { lines.append(("timeouts", Format.timeouts(timeouts))) }
    if let rate = job.maxBytesPerSecond {
        lines.append(("rate limit", "\(Format.bytes(rate))/s (\(rate) bytes per second)"))
    }
    if let network = job.network { lines.append(("network", network.rawValue)) }
    if job.requiresAC == true { lines.append(("requires AC", "yes")) }
    if job.requiresIdle == true { lines.append(("requires idle", "yes")) }
    if let minBattery = job.minBattery { lines.append(("min battery", String(format: "%g%%", minBattery))) }
    if let notBefore = job.notBefore { lines.append(("not before", Format.time(notBefore))) }
    if let deadline = job.deadline { lines.append(("deadline", Format.time(deadline))) }
    switch job.onDeadline {
    case .run: lines.append(("on deadline", "start even if power, a metered link, pressure or a window holds it"))
    case .expire: lines.append(("on deadline", "expire if it has not started by then"))
    case nil: break
    }
    if let periodic = job.periodic { lines.append(("every", Format.schedule(periodic))) }
    if let unit = job.onCompleteUnit { lines.append(("on complete", "starts \(unit)")) }
    if let retryAt = job.retryAt { lines.append(("retry at", Format.time(retryAt))) }
    for reason in job.waitingFor ?? [] { lines.append(("waiting for", Format.reason(reason))) }
    if let progress = job.progress, job.state == .running { lines.append(("transfer", Format.transfer(progress))) }
    if let usage = job.usage {
        let cpu = usage.cpuPercent.map { String(format: "%.0f%% CPU, ", $0) } ?? ""
        lines.append(("using", cpu + Format.usage(usage)))
    }
    if let error = job.error {
        // A failed job is over even when its last failure was of a retryable kind.
        let retry =
            !error.retryable ? "" : job.state == .failed ? " (retryable, but no attempt was left)" : " (retryable)"
        lines.append(("error", "\(error.code): \(error.message)\(retry)"))
    }
    switch job.state {
    case .queued where !(job.waitingFor ?? []).isEmpty:
        lines.append(("next", "lullctl explain \(job.id) says in full why it waits"))
    case .running, .queued: lines.append(("next", "lullctl watch \(job.id) follows it live"))
    default: break
    }
    let width = lines.map(\.0.count).max() ?? 0
    return lines.map { TextLayout.pad($0.0, width) + "  " + TextLayout.printable($0.1) }.joined(separator: "\n")
}
