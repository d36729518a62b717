/// The limits a run job's fields meet, named in the errors that enforce them.
extension RunJob {
    /// Most words in `argv`.
    public static let maxArguments = 4096
    /// Longest single word of `argv` or value of `environment`: the kernel's `MAX_ARG_STRLEN`.
    public static let maxWordBytes = 128 << 10
    /// Most variables in `environment`.
    public static let maxVariables = 1024
    /// Longest variable name.
    public static let maxVariableNameBytes = 256
    /// `stop_grace_seconds` may be from 0 to an hour.
    public static let stopGraceRange = 0.0...3600
    /// `output_tail_bytes` may be from 0 to 1 MiB.
    public static let outputTailRange = 0...(1 << 20)

    public func validate(with validator: JobSpecValidator) throws(ValidationError) {
        if let unit {
            try validateUnit(unit, with: validator)
        } else {
            try validateArgv()
        }
        if let workingDirectory { try Self.validateDirectory(workingDirectory) }
        try validateEnvironment()
        for code in retryExitCodes ?? [] where !(1...255).contains(code) {
            throw ValidationError(
                .invalidValue,
                field: "retry_exit_codes",
                "retry_exit_codes holds \(code); exit statuses are from 1 to 255 (0 is success)"
            )
        }
        if let grace = stopGraceSeconds, !Self.stopGraceRange.contains(grace) {
            throw ValidationError(
                .invalidValue,
                field: "stop_grace_seconds",
                "stop_grace_seconds is \(grace); give seconds from 0 to 3600"
            )
        }
        if let nice, !(-20...19).contains(nice) {
            throw ValidationError(.invalidValue, field: "nice", "nice is \(nice); give a niceness from -20 to 19")
        }
        if let tail = outputTailBytes, !Self.outputTailRange.contains(tail) {
            throw ValidationError(
                .invalidValue,
                field: "output_tail_bytes",
                "output_tail_bytes is \(tail); give bytes from 0 to \(Self.outputTailRange.upperBound) (1 MiB)"
            )
        }
        try resources?.validate()
        // After the ranges, so a value out of range is named as such on any host.
        if let field = resources?.values.first(where: { !validator.enforces(resource: $0.field) })?.field {
            guard !validator.cgroupControllers.isEmpty else {
                throw ValidationError(
                    .notEnforceable,
                    field: field,
                    "\(field) needs lulld to run commands as systemd units ([run] host = \"systemd\"); this lulld starts commands itself, where only nice applies"
                )
            }
            let applying = ["nice"] + RunResources.fields.filter { validator.enforces(resource: $0) }
            throw ValidationError(
                .notEnforceable,
                field: field,
                "\(field) needs the \(RunResources.controller(of: field)) controller, which lulld's cgroup does not delegate, or systemd units ([run] host = \"systemd\"); this lulld starts commands in cgroups where \(applying.joined(separator: ", ")) apply"
            )
        }
    }

    /// A unit job names an existing service to start, and nothing a command would need.
    private func validateUnit(_ unit: String, with validator: JobSpecValidator) throws(ValidationError) {
        guard argv.isEmpty else {
            throw ValidationError(.invalidValue, field: "unit", "give either argv or unit, not both")
        }
        guard let name = UnitName(unit), !name.isTemplate, unit.hasSuffix(".service") else {
            throw ValidationError(
                .invalidValue,
                field: "unit",
                "unit \"\(UntrustedText.escaped(unit))\" is not a service name; give an existing unit such as backup.service (not a template, at most \(UnitName.maxLength) bytes)"
            )
        }
        guard !unit.hasPrefix(Self.ownUnitPrefix) else {
            throw ValidationError(
                .invalidValue,
                field: "unit",
                "units named \(Self.ownUnitPrefix)* are lulld's own; name another unit"
            )
        }
        for (field, present) in [
            ("working_directory", workingDirectory != nil), ("environment", environment != nil), ("nice", nice != nil),
            (resources?.values.first?.field ?? "", resources != nil),
        ] where present {
            throw ValidationError(
                .invalidValue,
                field: field,
                "\(field) does not apply to a unit job: the unit's own file says how it runs"
            )
        }
        guard validator.runsCommandsAsUnits else {
            throw ValidationError(
                .notEnforceable,
                field: "unit",
                "unit needs lulld to run jobs through systemd ([run] host = \"systemd\"); this lulld starts commands itself"
            )
        }
    }

    private func validateArgv() throws(ValidationError) {
        guard let program = argv.first else {
            throw ValidationError(.invalidValue, field: "argv", "argv is empty; give the program and its arguments")
        }
        guard argv.count <= Self.maxArguments else {
            throw ValidationError(
                .tooLarge,
                field: "argv",
                "argv has \(argv.count) words; the limit is \(Self.maxArguments)"
            )
        }
        guard !program.isEmpty else {
            throw ValidationError(.invalidValue, field: "argv[0]", "argv[0] is empty; give the program to run")
        }
        for (index, word) in argv.enumerated() {
            try Self.validateWord(word, field: "argv[\(index)]")
        }
    }

    private func validateEnvironment() throws(ValidationError) {
        guard let environment else { return }
        guard environment.count <= Self.maxVariables else {
            throw ValidationError(
                .tooLarge,
                field: "environment",
                "environment has \(environment.count) variables; the limit is \(Self.maxVariables)"
            )
        }
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) {
            guard Self.isVariableName(name) else {
                throw ValidationError(
                    .invalidValue,
                    field: "environment",
                    "environment variable name \"\(UntrustedText.escaped(name))\" is not valid; names are a letter or _ followed by letters, digits and _ (at most \(Self.maxVariableNameBytes) bytes)"
                )
            }
            try Self.validateWord(value, field: "environment.\(name)")
        }
    }

    /// A word a program receives: no NUL (it would end the word), no control character that
    /// could drive a terminal (tab and newline are fine: scripts hold them), within the limit.
    static func validateWord(_ word: String, field: String) throws(ValidationError) {
        guard word.utf8.count <= maxWordBytes else {
            throw ValidationError(
                .tooLarge,
                field: field,
                "\(field) is \(word.utf8.count) bytes; the limit is \(maxWordBytes) bytes (the kernel's MAX_ARG_STRLEN)"
            )
        }
        var offset = 0
        for scalar in word.unicodeScalars {
            if scalar == "\0" {
                throw ValidationError(
                    .invalidValue,
                    field: field,
                    "\(field) holds a NUL byte at byte \(offset); a program cannot receive one"
                )
            }
            if UntrustedText.isControl(scalar), scalar != "\t", scalar != "\n" {
                throw ValidationError(
                    .invalidValue,
                    field: field,
                    "\(field) holds the control character \(UntrustedText.name(scalar)) at byte \(offset); only tab and newline are accepted (the others could drive a terminal that shows the job)"
                )
            }
            offset += UTF8.width(scalar)
        }
    }

    static func validateDirectory(_ path: String) throws(ValidationError) {
        let field = "working_directory"
        guard path.hasPrefix("/") else {
            throw ValidationError(
                .invalidValue,
                field: field,
                "working_directory \"\(path)\" is not an absolute path; give a path starting with /"
            )
        }
        guard path.utf8.count <= 4096 else {
            throw ValidationError(.tooLarge, field: field, "working_directory is longer than PATH_MAX (4096 bytes)")
        }
        guard !path.utf8.contains(0), !path.split(separator: "/").contains("..") else {
            throw ValidationError(
                .invalidValue,
                field: field,
                "working_directory \"\(UntrustedText.escaped(path))\" must not contain \"..\" or a NUL byte"
            )
        }
    }

    /// `[A-Za-z_][A-Za-z0-9_]*`, as POSIX shells accept.
    static func isVariableName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= maxVariableNameBytes else { return false }
        func letter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
        func digit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        return (letter(first) || first == UInt8(ascii: "_"))
            && bytes.allSatisfy { letter($0) || digit($0) || $0 == UInt8(ascii: "_") }
    }
}
