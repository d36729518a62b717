import LullCore

// The flat wire body holds every kind's fields; a kind takes the ones it names and refuses the
// rest, so a field sent to the wrong kind is an error rather than silently ignored. A few that
// release 0.1 documented as "accepted, not used" for a kind are still accepted (and dropped), so
// that clients sending them keep working.
extension JobSubmission {
    /// The spec, with the URL and label checked before the kind's fields when those are wrong
    /// (`JobSpecValidator.validateLeadingFields`); the rest is `validator.validate`'s.
    public func spec(checkingFirst validator: JobSpecValidator) throws(ValidationError) -> JobSpec {
        do {
            return try spec()
        } catch {
            if WireKinds.type(of: kind)?.takesURL != false {
                try validator.validateLeadingFields(url: url, label: label)
            }
            throw error
        }
    }

    /// The spec checked whole (as `owner`'s where given), then with what the daemon decides at
    /// submission filled in. Checked before that, so an error names what the client sent: a
    /// push's `Idempotency-Key` header is a header value (a tab allowed), not the plain-text
    /// `idempotency_key` it becomes.
    public func validatedSpec(_ validator: JobSpecValidator, owner: OwnerID? = nil) throws(ValidationError) -> JobSpec {
        let spec = try spec(checkingFirst: validator)
        if let owner { try validator.validate(spec, owner: owner) } else { try validator.validate(spec) }
        return spec.prepared()
    }

    /// The typed payload this submission describes, made by the kind's `WireKind` conformance.
    func payload() throws(ValidationError) -> JobPayload {
        guard let type = WireKinds.type(of: kind) else {
            throw ValidationError(.invalidValue, field: "kind", "this daemon cannot take \(kind.rawValue) jobs")
        }
        return try type.init(self).payload
    }

    /// The kind-specific fields this submission carries, by wire name, in wire order.
    var kindFields: [(name: String, present: Bool)] {
        [
            ("destination", destination != nil), ("source", source != nil),
            ("body", body != nil || bodyBase64 != nil), ("method", method != nil), ("content_type", contentType != nil),
            ("protocol", uploadProtocol != nil), ("form_field", formField != nil),
            ("idempotency_key", idempotencyKey != nil), ("sha256", sha256 != nil),
            ("expected_bytes", expectedBytes != nil), ("max_bytes", maxBytes != nil), ("mode", mode != nil),
            ("expected_bytes_up", expectedBytesUp != nil), ("chunk_bytes", chunkBytes != nil),
            ("argv", argv != nil), ("working_directory", workingDirectory != nil), ("environment", environment != nil),
            ("retry_exit_codes", retryExitCodes != nil), ("stop_grace_seconds", stopGraceSeconds != nil),
            ("nice", nice != nil),
            ("output_tail_bytes", outputTailBytes != nil),
            ("cpu_weight", cpuWeight != nil), ("memory_max", memoryMax != nil), ("io_weight", ioWeight != nil),
            ("tasks_max", tasksMax != nil), ("unit", unit != nil),
        ]
    }

    /// Refuses the kind-specific fields `kind` neither takes nor tolerates, and control
    /// characters in those it tolerates (they are dropped, but the rule is the same for all).
    func refuseFields(except taken: Set<String>, tolerating ignored: Set<String> = []) throws(ValidationError) {
        for (name, present) in kindFields where present && !taken.contains(name) && !ignored.contains(name) {
            throw ValidationError(.invalidValue, field: name, "\"\(name)\" does not apply to \(kind.rawValue) jobs")
        }
        let toleratedTexts = [
            ("content_type", contentType), ("form_field", formField), ("idempotency_key", idempotencyKey),
        ]
        try JobSpecValidator.refuseControlCharacters(in: toleratedTexts.filter { ignored.contains($0.0) })
    }

    /// A field the kind cannot do without.
    func required<T>(_ value: T?, _ field: String) throws(ValidationError) -> T {
        guard let value else {
            throw ValidationError(.missingField, field: field, "\(kind.rawValue) jobs need \"\(field)\"")
        }
        return value
    }
}
