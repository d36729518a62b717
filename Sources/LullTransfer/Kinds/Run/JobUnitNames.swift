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

    /// The names for a lulld running in `ownUnit` (nil: in no unit) on `stateDirectory`.
    public static func of(ownUnit: String?, stateDirectory: String) -> JobUnitNames {
        guard ownUnit != "lulld.service" else { return .plain }
        let digest = RunningDigest()
        var bytes = Array(resolved(stateDirectory).utf8)
        bytes.withUnsafeMutableBytes { digest.update(UnsafeRawBufferPointer($0)) }
        return JobUnitNames(tag: String(digest.hex().prefix(8)))
    }

    /// The directory with its symlinks resolved, so that neither the tag nor the kept decision
    /// changes with the path's spelling.
    static func resolved(_ directory: String) -> String {
        guard let resolved = realpath(directory, nil) else { return directory }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// How the names were settled at this start.
    public struct Settled: Sendable {
        public var names: JobUnitNames
        /// Why they were not asked of the manager (it did not answer: tagged for this run, and
        /// decided again at the next start), or could not be kept; nil when all went well.
        public var problem: (any Error)?
        /// The directory's tagged names, which a run whose manager did not answer used.
        var tagged: JobUnitNames

        /// The names a crashed lulld on this directory may have left units under: plain names
        /// also look under the directory's tag, which no other lulld can have.
        public var leftoverNames: [JobUnitNames] { names == tagged ? [names] : [names, tagged] }
    }

    /// The names kept in `stateDirectory` for that directory; else, at the first start on the
    /// systemd host, those for the unit `ownUnit` says lulld runs in, kept from then on. Decided
    /// once: names that changed between starts (lulld moved to another unit) would miss the
    /// units a crashed lulld left running. A manager that does not answer (`ownUnit` throws)
    /// gets tagged names, which cannot be another lulld's, and nothing is kept. A copy of the
    /// directory elsewhere decides again: it is another store, whose ids would meet the first's.
    public static func settled(in stateDirectory: String, ownUnit: () async throws -> String?) async -> Settled {
        let path = resolved(stateDirectory)
        let tagged = of(ownUnit: nil, stateDirectory: path)
        let file = URL(fileURLWithPath: path + "/" + keptFile)
        if let text = try? String(contentsOf: file, encoding: .utf8), let names = JobUnitNames(kept: text, for: path) {
            return Settled(names: names, tagged: tagged)
        }
        let unit: String?
        do {
            unit = try await ownUnit()
        } catch {
            return Settled(names: tagged, problem: error, tagged: tagged)
        }
        let names = of(ownUnit: unit, stateDirectory: path)
        do {
            try Data("\(names.tag ?? plainMark)\n\(path)\n".utf8).write(to: file, options: .atomic)
            return Settled(names: names, tagged: tagged)
        } catch {
            return Settled(names: names, problem: error, tagged: tagged)
        }
    }

    /// The file in the state directory that keeps the decision: the tag or `plain`, then the
    /// directory it was made for.
    static let keptFile = "job-unit-tag"
    private static let plainMark = "plain"

    private init?(kept: String, for directory: String) {
        let lines = kept.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 2, lines[1] == directory else { return nil }
        let text = lines[0]
        if text == Self.plainMark {
            tag = nil
        } else if text.utf8.count == 8,
            text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        {
            tag = String(text)
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
        return "\(RunJob.ownUnitPrefix)\(tag)-<id>.service (tagged with the state directory)"
    }

    /// Whether `unit` is a job's unit, of this lulld or another (a job may not name one).
    public static func isJobUnit(_ unit: String) -> Bool { unit.hasPrefix(RunJob.ownUnitPrefix) }
}
