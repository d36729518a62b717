import Logging
import LullCore

/// The text of a job's log records. The essentials are in the message itself, not only in the
/// journal's fields, because `journalctl -u lulld` shows the message alone: which job (and
/// its label), what it moves where, and why it failed. Client text in it is escaped by the
/// log handler.
enum JobLogLine {
    /// `job 42 (nightly)`.
    static func name(_ job: Job) -> String {
        "job \(job.id)" + (job.spec.label.map { " (\($0))" } ?? "")
    }

    /// `fetch http://host/f → /srv/f`.
    static func work(_ job: Job) -> String { job.spec.payload.contents.summary }

    static func started(_ job: Job) -> String {
        "\(name(job)) started: \(work(job)), attempt \(job.attempts)"
    }

    static func succeeded(_ job: Job, bytes: Int64?) -> String {
        "\(name(job)) succeeded: \(work(job))" + (bytes.map { ", \($0) bytes" } ?? "")
    }

    static func failed(_ job: Job, _ failure: JobFailure) -> String {
        "\(name(job)) failed: \(failure.code): \(failure.message)"
    }

    static func retrying(_ job: Job, _ failure: JobFailure, in delay: Double) -> String {
        "\(name(job)) attempt \(job.attempts) failed, retried in \(String(format: "%.1f", delay)) s: \(failure.code): \(failure.message)"
    }

    static func requeued(_ job: Job, because reason: String) -> String {
        "\(name(job)) checkpointed and requeued: \(reason)"
    }

    static func stopped(_ job: Job, because reason: WaitingReason.Code, stops: Int) -> String {
        "\(name(job)) stopped (\(stops == 1 ? "once" : "\(stops) times")): \(reason.rawValue.replacingOccurrences(of: "_", with: " ")); checkpointed and queued until its conditions hold again"
    }

    /// What a run job's command used, as journal fields (`CPU_SECONDS`, `MEMORY_PEAK_BYTES`,
    /// `IO_READ_BYTES`, `IO_WRITE_BYTES`); none for a result without them (transfers).
    static func usageFields(_ result: JobResult?) -> Logger.Metadata {
        guard let result, let cpu = result.cpuSeconds else { return [:] }
        var fields: Logger.Metadata = ["cpu_seconds": "\(cpu)"]
        if let memory = result.memoryPeakBytes { fields["memory_peak_bytes"] = "\(memory)" }
        if let read = result.ioReadBytes { fields["io_read_bytes"] = "\(read)" }
        if let written = result.ioWriteBytes { fields["io_write_bytes"] = "\(written)" }
        return fields
    }

    /// The fields every job record in the journal carries (upper-cased there: JOB_ID, …).
    static func metadata(_ job: Job, _ extra: Logger.Metadata = [:]) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "job_id": "\(job.id)", "job_kind": "\(job.spec.kind.rawValue)", "class": "\(job.spec.jobClass)",
            "owner_uid": "\(job.owner.rawValue)", "attempt": "\(job.attempts)",
        ]
        metadata.merge(extra) { _, new in new }
        return metadata
    }
}
