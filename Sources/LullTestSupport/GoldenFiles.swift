import Foundation

/// Files holding, byte for byte, what the code wrote when they were recorded (the wire JSON,
/// the store's rows), under `Tests/Fixtures/golden/`. A test compares what it makes now with
/// them. A missing file is a failure, not a silent first recording: goldens are recorded on
/// purpose, with `LULL_RECORD_GOLDENS=1` in the environment, which rewrites every one compared.
public struct GoldenFiles: Sendable {
    public let directory: URL

    /// The environment variable that records goldens instead of comparing with them.
    public static let recordVariable = "LULL_RECORD_GOLDENS"

    /// `Tests/Fixtures/<subdirectory>` of this repository.
    public static func fixtures(_ subdirectory: String) -> URL {
        // This file is Sources/LullTestSupport/GoldenFiles.swift.
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tests/Fixtures").appendingPathComponent(subdirectory)
    }

    public init(directory: URL = GoldenFiles.fixtures("golden")) { self.directory = directory }

    public static var recording: Bool { ProcessInfo.processInfo.environment[recordVariable] == "1" }

    public enum Outcome: Equatable, CustomStringConvertible {
        case matches
        case recorded(String)
        case missing(String)
        /// The golden's text, what was made now, and the first byte where they part.
        case differs(path: String, expected: String, actual: String, offset: Int)

        public var isSuccess: Bool {
            switch self {
            case .matches, .recorded: true
            case .missing, .differs: false
            }
        }

        public var description: String {
            switch self {
            case .matches: "matches"
            case .recorded(let path): "recorded \(path)"
            case .missing(let path):
                "no golden file \(path); record goldens on purpose with \(GoldenFiles.recordVariable)=1, from the code before the change"
            case .differs(let path, let expected, let actual, let offset):
                "\(path) differs from byte \(offset):\n--- golden\n\(expected)\n--- now\n\(actual)"
            }
        }
    }

    /// Compares `actual` with the golden `name`, or records it when recording.
    public func compare(_ actual: some Collection<UInt8>, with name: String) throws -> Outcome {
        let url = directory.appendingPathComponent(name)
        let bytes = Array(actual)
        if Self.recording {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
            return .recorded(url.path)
        }
        guard let expected = FileManager.default.contents(atPath: url.path).map(Array.init) else {
            return .missing(url.path)
        }
        guard expected != bytes else { return .matches }
        let common = min(expected.count, bytes.count)
        let offset = (0..<common).first { expected[$0] != bytes[$0] } ?? common
        return .differs(
            path: url.path,
            expected: String(decoding: expected, as: UTF8.self),
            actual: String(decoding: bytes, as: UTF8.self),
            offset: offset
        )
    }
}
