import Foundation

/// Checks a spec against the rules every job must meet before it is acknowledged.
/// The field names in errors are the wire names, so a client can point at its own mistake.
public struct JobSpecValidator: Sendable {
    public var limits: SubmissionLimits
    public var knownClasses: Set<String>
    /// Units `on_complete_unit` may name; nil allows any (a user instance starts units in its
    /// own user's manager). A system instance passes the admin's `[hooks] allowed_units`.
    public var allowedUnits: Set<String>?
    /// Directories the daemon sees but its clients do not (a service's `PrivateTmp=`): a file
    /// there would be written where its owner cannot see it.
    public var privateDirectories: PrivateDirectories
    /// Whether run jobs start as systemd units (`[run] host`), which alone enforce
    /// `cpu_weight`, `memory_max`, `io_weight` and `tasks_max`; else those are refused.
    public var runsCommandsAsUnits: Bool
    /// On the process host, the controllers of the cgroup each command gets (`cpu`, `memory`,
    /// `io`, `pids`): the controls those enforce are accepted too.
    public var cgroupControllers: Set<String>
    /// Where lulld starts commands itself and can neither become another uid nor signal its
    /// processes: its own uid, the one owner whose commands it runs. Nil when it runs anyone's
    /// (as root, or as units with `User=`).
    public var commandsOnlyOf: OwnerID?

    public init(
        limits: SubmissionLimits,
        knownClasses: Set<String> = Set(JobClassName.builtIn),
        allowedUnits: Set<String>? = nil,
        privateDirectories: PrivateDirectories = PrivateDirectories(),
        runsCommandsAsUnits: Bool = false,
        cgroupControllers: Set<String> = [],
        commandsOnlyOf: OwnerID? = nil
    ) {
        self.commandsOnlyOf = commandsOnlyOf
        self.runsCommandsAsUnits = runsCommandsAsUnits
        self.cgroupControllers = cgroupControllers
        self.limits = limits
        self.knownClasses = knownClasses
        self.allowedUnits = allowedUnits
        self.privateDirectories = privateDirectories
    }

    /// Whether the run host enforces the resource control `field`.
    public func enforces(resource field: String) -> Bool {
        runsCommandsAsUnits || cgroupControllers.contains(RunResources.controller(of: field))
    }

    public func validate(_ spec: JobSpec) throws(ValidationError) {
        // First, so that no later message echoes a control character back.
        let contents = spec.payload.contents
        try refuseControlCharacters(label: spec.label, contents)
        try contents.validate(with: self)
        if let label = spec.label, label.utf8.count > limits.maxLabelBytes {
            throw ValidationError(
                .tooLarge,
                field: "label",
                "label is \(label.utf8.count) bytes; the limit is \(limits.maxLabelBytes) bytes"
            )
        }
        guard knownClasses.contains(spec.jobClass) else {
            throw ValidationError(
                .invalidValue,
                field: "class",
                "unknown class \"\(UntrustedText.escaped(spec.jobClass))\"; known classes: \(knownClasses.sorted().joined(separator: ", "))"
            )
        }
        try validateCommon(spec)
    }

    /// `validate(_:)`, then what depends on who submits the job.
    public func validate(_ spec: JobSpec, owner: OwnerID) throws(ValidationError) {
        try validate(spec)
        try spec.payload.contents.validate(owner: owner, with: self)
    }

    /// What every HTTP transfer shares: its URL, request headers and certificate authorities.
    func validateTransfer(url: String, headers: [String: String]?, caFile: String?) throws(ValidationError) {
        try validateURL(url)
        for (name, value) in headers ?? [:] {
            let token = name.utf8.allSatisfy { $0 > 32 && $0 < 127 && $0 != UInt8(ascii: ":") }
            guard !name.isEmpty, token, !value.utf8.contains(where: { $0 == 10 || $0 == 13 || $0 == 0 }) else {
                throw ValidationError(.invalidValue, field: "headers", "header \"\(name)\" is not a valid HTTP header")
            }
        }
        try validatePath(caFile, field: "ca_file")
        try refusePrivate(caFile, field: "ca_file")
    }

    func validateSHA256(_ sha: String?) throws(ValidationError) {
        // ASCII only: Character.isHexDigit also takes the full-width forms, which no digest matches.
        if let sha, sha.utf8.count != 64 || !sha.utf8.allSatisfy({ Self.isASCIIHexDigit($0) }) {
            throw ValidationError(.invalidValue, field: "sha256", "sha256 must be 64 hexadecimal characters")
        }
    }

    func validateByteCount(_ value: Int64?, field: String) throws(ValidationError) {
        if let value, value < 0 {
            throw ValidationError(.invalidValue, field: field, "\(field) must not be negative")
        }
    }

    private func validateCommon(_ spec: JobSpec) throws(ValidationError) {
        if let retry = spec.retry {
            if let attempts = retry.maxAttempts, !(1...100).contains(attempts) {
                throw ValidationError(
                    .invalidValue,
                    field: "retry.max_attempts",
                    "retry.max_attempts must be from 1 to 100"
                )
            }
            for (field, value) in [("retry.base_seconds", retry.baseSeconds), ("retry.cap_seconds", retry.capSeconds)] {
                if let value, !(0.01...86_400).contains(value) {
                    throw ValidationError(.invalidValue, field: field, "\(field) must be from 0.01 to 86400 seconds")
                }
            }
        }
        if spec.constraints?.network == .notNeeded, !type(of: spec.payload.contents).mayNeedNoNetwork {
            throw ValidationError(
                .invalidValue,
                field: "network",
                "network \"none\" is for run jobs whose command needs no network; a \(spec.kind.rawValue) always does: give any, unmetered or not_cellular"
            )
        }
        if let battery = spec.constraints?.minBattery, !JobConstraints.minBatteryRange.contains(battery) {
            throw ValidationError(.invalidValue, field: "min_battery", "min_battery must be a percentage from 0 to 100")
        }
        if let unit = spec.onCompleteUnit { try validateUnit(unit) }
        if let rate = spec.maxBytesPerSecond, !BandwidthSchedule.rateRange.contains(rate) {
            let range = BandwidthSchedule.rateRange
            throw ValidationError(
                .invalidValue,
                field: "max_bytes_per_second",
                "max_bytes_per_second is \(rate); give bytes per second from \(range.lowerBound) (1 KiB/s) to \(range.upperBound) (1 TiB/s)"
            )
        }
        if let broken = TimingRule.firstBroken(
            notBefore: spec.notBefore,
            deadline: spec.deadline,
            onDeadline: spec.onDeadline,
            periodic: spec.periodic
        ) {
            throw broken.validationError
        }
        if let timeouts = spec.timeouts {
            for (field, value) in [
                ("timeouts.connect_seconds", timeouts.connectSeconds), ("timeouts.idle_seconds", timeouts.idleSeconds),
                ("timeouts.total_seconds", timeouts.totalSeconds),
            ] {
                if let value, !(0.1...(30 * 86_400)).contains(value) {
                    throw ValidationError(.invalidValue, field: field, "\(field) must be from 0.1 s to 30 days")
                }
            }
        }
    }

    private func validateUnit(_ text: String) throws(ValidationError) {
        guard UnitName(text) != nil else {
            throw ValidationError(
                .invalidValue,
                field: "on_complete_unit",
                "\"\(UntrustedText.escaped(text))\" is not a unit name lulld may start; give a .service or .target name such as \"sync-done.service\" or the template \"backup@.service\" (at most \(UnitName.maxLength) characters of A-Z a-z 0-9 : _ . - \\ and one @)"
            )
        }
        if let allowedUnits, !allowedUnits.contains(text) {
            let listed =
                allowedUnits.isEmpty ? "none are allowed" : "allowed: " + allowedUnits.sorted().joined(separator: ", ")
            throw ValidationError(
                .invalidValue,
                field: "on_complete_unit",
                "this system instance starts only the units its admin lists in [hooks] allowed_units (\(listed)); ask the administrator to add \"\(text)\" to [hooks] allowed_units in the daemon's lull.toml"
            )
        }
    }

    private func validateURL(_ url: String) throws(ValidationError) {
        guard !url.isEmpty else {
            throw ValidationError(.missingField, field: "url", "url is empty; give an http:// or https:// URL")
        }
        guard url.utf8.count <= limits.maxURLBytes else {
            throw ValidationError(
                .tooLarge,
                field: "url",
                "url is \(url.utf8.count) bytes; the limit is \(limits.maxURLBytes) bytes"
            )
        }
        guard Self.hasScheme(url) else {
            // "example.com/f" or "localhost:8000/f": what was meant is plain, and it is not
            // "scheme localhost is not supported".
            throw ValidationError(
                .invalidValue,
                field: "url",
                "url \"\(url)\" has no scheme; write http://\(url) or https://\(url)"
            )
        }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw ValidationError(.invalidValue, field: "url", "url \"\(url)\" is not a valid URL")
        }
        guard scheme == "http" || scheme == "https" else {
            throw ValidationError(
                .invalidValue,
                field: "url",
                "url scheme \"\(scheme)\" is not supported; use http or https"
            )
        }
        guard let host = components.host, !host.isEmpty else {
            throw ValidationError(.invalidValue, field: "url", "url \"\(url)\" has no host")
        }
        if let user = components.percentEncodedUser {
            // Refused rather than sent: the URL is shown in every view, event and log line, and
            // redacting it everywhere is one place more to forget.
            throw ValidationError(
                .invalidValue,
                field: "url",
                "url carries credentials (\"\(user):…@\"); they would be stored and shown in every view and log line. Send them as a header instead: lullctl --user \(user):PASSWORD, or \"headers\": {\"Authorization\": \"Basic <base64 of \(user):PASSWORD>\"}"
            )
        }
    }

    /// What release 0.1 checked before a kind's own fields: control characters in the URL and
    /// label, then the URL. A submission whose kind fields are wrong is checked this far first,
    /// so its answer names the same field as before.
    public func validateLeadingFields(url: String, label: String?) throws(ValidationError) {
        try Self.refuseControlCharacters(in: [("url", url), ("label", label)])
        try validateURL(url)
    }

    /// Control characters in any text a client chose: they could forge log records or drive
    /// another user's terminal (`lullctl list` as root shows every owner's labels).
    private func refuseControlCharacters(label: String?, _ contents: any KindPayload) throws(ValidationError) {
        try Self.refuseControlCharacters(in: [("label", label)] + contents.texts)
        try refuseControlCharacters(inHeaders: contents.headers)
    }

    /// Also for fields a kind accepts and drops: the rule holds for every text a client sends.
    public static func refuseControlCharacters(in texts: [(field: String, text: String?)]) throws(ValidationError) {
        for (field, text) in texts {
            guard let text, let found = UntrustedText.firstControl(in: text) else { continue }
            throw ValidationError(
                .invalidValue,
                field: field,
                "\(field) holds the control character \(UntrustedText.name(found.scalar)) at byte \(found.offset); control characters are refused (they could forge log lines or terminal output)"
            )
        }
    }

    private func refuseControlCharacters(inHeaders headers: [String: String]?) throws(ValidationError) {
        for (name, value) in headers ?? [:] {
            // HTTP allows a tab inside a field value, nothing else below 0x20.
            if let found = UntrustedText.firstControl(in: name)
                ?? UntrustedText.firstControl(in: value, allowingTab: true)
            {
                throw ValidationError(
                    .invalidValue,
                    field: "headers",
                    "header \"\(UntrustedText.escaped(name))\" holds the control character \(UntrustedText.name(found.scalar)); control characters are refused in header names and values"
                )
            }
        }
    }

    func refusePrivate(_ path: String?, field: String) throws(ValidationError) {
        guard let path, let directory = privateDirectories.containing(path) else { return }
        throw ValidationError(
            .invalidValue,
            field: field,
            "\(field) \(path) is under \(directory), which this lulld does not share with you (it runs as a systemd service with its own private \(directory), PrivateTmp=yes): the file would be \(field == "destination" ? "written to" : "read from") a place you cannot see, which is deleted when the service stops. Use a directory under your home or one the administrator made writable for lulld (ReadWritePaths=; see docs/security.md)"
        )
    }

    /// `scheme://` at the start (RFC 3986: a letter, then letters, digits, `+`, `-` or `.`).
    private static func hasScheme(_ url: String) -> Bool {
        guard let separator = url.range(of: "://") else { return false }
        let scheme = url.utf8[..<separator.lowerBound]
        guard let first = scheme.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first | 0x20) else {
            return false
        }
        return scheme.allSatisfy { byte in
            let lower = byte | 0x20
            return (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(lower)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
    }

    func validatePath(_ path: String?, field: String) throws(ValidationError) {
        guard let path else { return }
        guard path.hasPrefix("/") else {
            throw ValidationError(
                .invalidValue,
                field: field,
                "\(field) \"\(path)\" is not an absolute path; give a path starting with /"
            )
        }
        guard !path.hasSuffix("/"), !path.utf8.contains(0) else {
            throw ValidationError(.invalidValue, field: field, "\(field) \"\(path)\" must name a file, not a directory")
        }
        guard path.utf8.count <= 4096 else {
            throw ValidationError(.tooLarge, field: field, "\(field) is longer than PATH_MAX (4096 bytes)")
        }
        guard !PathComponents.hasParent(path) else {
            throw ValidationError(.invalidValue, field: field, "\(field) \"\(path)\" must not contain \"..\"")
        }
    }

    private static func isASCIIHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            true
        default: false
        }
    }
}
