import CSystemd
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// A swift-log handler that writes structured records to the journal through `sd_journal_sendv`
/// (the variadic `sd_journal_send` cannot be called from Swift). Besides `MESSAGE`, `PRIORITY`,
/// `SYSLOG_IDENTIFIER` and `CODE_FILE`/`CODE_LINE`/`CODE_FUNC`, every metadata key becomes a
/// field of its own in upper case (`job_id` → `JOB_ID`), so `journalctl -u lulld JOB_ID=42`
/// finds one job's records.
public struct JournalLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level = .info
    private let identifier: String

    public init(identifier: String) {
        self.identifier = identifier
    }

    /// Whether stderr is a stream to journald: systemd sets `JOURNAL_STREAM` to the
    /// `device:inode` of that stream, and a stderr redirected elsewhere no longer matches.
    public static func stderrIsJournal(environment: [String: String]) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String] = [
            "MESSAGE=\(event.message)",
            "PRIORITY=\(Self.priority(event.level))",
            "SYSLOG_IDENTIFIER=\(identifier)",
            "CODE_FILE=\(event.file)",
            "CODE_LINE=\(event.line)",
            "CODE_FUNC=\(event.function)",
        ]
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let own = event.metadata { merged.merge(own) { _, new in new } }
        for (key, value) in merged {
            guard let name = Self.fieldName(key) else { continue }
            fields.append("\(name)=\(value)")
        }
        Self.send(fields)
    }

    /// A journal field name: upper case letters, digits and underscores, not starting with an
    /// underscore or a digit (those are reserved or refused), at most 64 characters.
    static func fieldName(_ key: String) -> String? {
        var name = ""
        for scalar in key.unicodeScalars {
            switch scalar {
            case "a"..."z": name.unicodeScalars.append(Unicode.Scalar(scalar.value - 32)!)
            case "A"..."Z", "0"..."9", "_": name.unicodeScalars.append(scalar)
            default: name.append("_")
            }
        }
        while let first = name.first, first == "_" || first.isNumber { name.removeFirst() }
        guard !name.isEmpty else { return nil }
        return String(name.prefix(64))
    }

    /// syslog priorities: 2 critical … 7 debug.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// One iovec per `NAME=value` field, all pointing into one buffer; values may hold
    /// newlines (the journal's native protocol takes them as they are).
    static func send(_ fields: [String]) {
        var buffer: [UInt8] = []
        var ranges: [Range<Int>] = []
        for field in fields {
            let start = buffer.count
            buffer.append(contentsOf: field.utf8)
            ranges.append(start..<buffer.count)
        }
        buffer.withUnsafeMutableBytes { bytes in
            let vectors = ranges.map { iovec(iov_base: bytes.baseAddress! + $0.lowerBound, iov_len: $0.count) }
            _ = sd_journal_sendv(vectors, Int32(vectors.count))
        }
    }
}
