import Foundation
import LullCore

#if canImport(Glibc)
import Glibc
#endif

/// How this lulld names its jobs' units on the systemd host. The shipped `lulld.service` (the
/// system's, or a user's) names them `lull-job-<id>.service`; any other lulld on a manager (a
/// second instance, a test's, one started by hand with `host = "systemd"`) adds a tag made
/// from its state directory, `lull-job-<tag>-<id>.service`. Job ids are per store, so without
/// the tag two lullds on one manager would start, stop and freeze each other's units.
public struct JobUnitNames: Sendable, Equatable, CustomStringConvertible {
    /// Eight hex digits of the state directory's SHA-256; nil for the shipped unit.
    public let tag: String?

    public init(tag: String?) { self.tag = tag }

    /// The names of the shipped `lulld.service`, and of every lulld in tests that fake the manager.
    public static let plain = JobUnitNames(tag: nil)

    /// The names for a lulld running in `ownUnit` (nil: in no unit) on `stateDirectory`. The
    /// directory is resolved so that the tag, and with it the leftover units a restart looks
    /// for, does not change with the path's spelling.
    public static func of(ownUnit: String?, stateDirectory: String) -> JobUnitNames {
        guard ownUnit != "lulld.service" else { return .plain }
        var path = stateDirectory
        if let resolved = realpath(stateDirectory, nil) {
            path = String(cString: resolved)
            free(resolved)
        }
        let digest = RunningDigest()
        var bytes = Array(path.utf8)
        bytes.withUnsafeMutableBytes { digest.update(UnsafeRawBufferPointer($0)) }
        return JobUnitNames(tag: String(digest.hex().prefix(8)))
    }

    /// The names kept in `stateDirectory`; at the first start on the systemd host, those for the
    /// unit `ownUnit` names, kept there from then on. Decided once: names that changed between
    /// starts (the manager too busy to answer at one of them, lulld moved to another unit) would
    /// miss the units a crashed lulld left running. `keptFailure` says why names that are used
    /// all the same could not be kept.
    public static func settled(
        in stateDirectory: String,
        ownUnit: () async -> String?
    ) async -> (names: JobUnitNames, keptFailure: (any Error)?) {
        let file = URL(fileURLWithPath: stateDirectory + "/" + keptFile)
        if let kept = try? String(contentsOf: file, encoding: .utf8), let names = JobUnitNames(kept: kept) {
            return (names, nil)
        }
        let names = of(ownUnit: await ownUnit(), stateDirectory: stateDirectory)
        do {
            try Data(((names.tag ?? plainMark) + "\n").utf8).write(to: file, options: .atomic)
            return (names, nil)
        } catch {
            return (names, error)
        }
    }

    /// The file in the state directory that keeps the decision: the tag, or `plain`.
    static let keptFile = "job-unit-tag"
    private static let plainMark = "plain"

    private init?(kept: String) {
        let text = kept.trimmingCharacters(in: .whitespacesAndNewlines)
        if text == Self.plainMark {
            tag = nil
        } else if text.utf8.count == 8,
            text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        {
            tag = text
        } else {
            return nil
        }
    }

    /// The unit a job's command runs in.
    public func unit(of id: JobID) -> String {
        guard let tag else { return "\(RunJob.ownUnitPrefix)\(id.rawValue).service" }
        return "\(RunJob.ownUnitPrefix)\(tag)-\(id.rawValue).service"
    }

    public var description: String {
        guard let tag else { return "\(RunJob.ownUnitPrefix)<id>.service" }
        return "\(RunJob.ownUnitPrefix)\(tag)-<id>.service "
            + "(tagged, as kept in job-unit-tag: at its first start here this lulld was not its manager's lulld.service)"
    }

    /// Whether `unit` is a job's unit, of this lulld or another (a job may not name one).
    public static func isJobUnit(_ unit: String) -> Bool { unit.hasPrefix(RunJob.ownUnitPrefix) }
}
