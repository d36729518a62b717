/// A systemd unit a job may start when it ends (`on_complete_unit`): a service or a target.
/// A template (`backup@.service`) is started as the instance named after the job's id
/// (`backup@42.service`), so the unit learns which job finished from `%i`.
public struct UnitName: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    /// The unit types a hook may start.
    public static let allowedSuffixes = [".service", ".target"]
    /// systemd's own limit on unit names.
    public static let maxLength = 255

    /// nil unless `text` is a valid service or target name: `[A-Za-z0-9:_.\-]` with at most one
    /// `@` (a template or an instance), and a `.service` or `.target` suffix.
    public init?(_ text: String) {
        guard text.utf8.count <= Self.maxLength,
            let suffix = Self.allowedSuffixes.first(where: { text.hasSuffix($0) })
        else { return nil }
        let stem = text.dropLast(suffix.count)
        guard !stem.isEmpty, stem.first != "@", stem.filter({ $0 == "@" }).count <= 1,
            stem.unicodeScalars.allSatisfy({ Self.allowed($0) })
        else { return nil }
        rawValue = text
    }

    public var description: String { rawValue }

    /// `name@.service`: started once per job as `name@JOBID.service`.
    public var isTemplate: Bool { rawValue.contains("@.") }

    /// The unit to start for `job`: the template's instance for that job, else the unit itself.
    public func instance(for job: JobID) -> String {
        guard isTemplate, let at = rawValue.firstIndex(of: "@") else { return rawValue }
        return rawValue[...at] + String(job.rawValue) + rawValue[rawValue.index(after: at)...]
    }

    private static func allowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", ":", "_", ".", "-", "\\", "@": true
        default: false
        }
    }
}
