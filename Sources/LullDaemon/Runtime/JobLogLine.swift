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
    static func work(_ job: Job) -> String {
        let spec = job.spec
        switch spec.kind {
        case .fetch: return "fetch \(spec.url) → \(spec.destination ?? "?")"
        case .upload: return "upload \(spec.source ?? "?") → \(spec.url)"
        case .push: return "push \(spec.method ?? "POST") \(spec.url)"
        }
    }

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
}
