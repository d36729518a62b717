import Logging
import Synchronization

/// Keeps what an in-process daemon logs, one line per message with its metadata, for a test
/// to read or print when it fails (a live lulld's log file, without the process).
struct RecordingLogHandler: LogHandler {
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])

        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var text: String { lines.withLock { $0.joined(separator: "\n") } }
    }

    let lines: Lines
    var logLevel: Logger.Level = .debug
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let fields = metadata.merging(event.metadata ?? [:]) { _, new in new }
            .sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        lines.append("\(event.level) \(fields.isEmpty ? "" : fields + " ")\(event.message)")
    }
}
