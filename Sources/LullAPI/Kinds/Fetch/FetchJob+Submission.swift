import LullCore

extension FetchJob: WireKind {
    /// The kind-specific wire fields it takes, and those it accepts and drops (see `refuseFields`).
    static let wireFields: Set<String> = [
        "destination", "sha256", "expected_bytes", "max_bytes", "mode", "expected_bytes_up",
    ]
    static let toleratedFields: Set<String> = ["content_type", "form_field"]

    /// The fetch a wire submission describes.
    init(_ submission: JobSubmission) throws(ValidationError) {
        try submission.refuseFields(except: Self.wireFields, tolerating: Self.toleratedFields)
        var fileMode: FileMode?
        if let mode = submission.mode {
            guard let parsed = FileMode(octal: mode) else {
                throw ValidationError(
                    .invalidValue,
                    field: "mode",
                    "mode \"\(mode)\" is not a file mode; give 3 or 4 octal digits from 0000 to 0777, such as \"0644\""
                )
            }
            fileMode = parsed
        }
        self.init(
            url: submission.url,
            destination: try submission.required(submission.destination, "destination"),
            headers: submission.headers,
            sha256: submission.sha256?.lowercased(),
            expectedBytes: submission.expectedBytes,
            maxBytes: submission.maxBytes,
            fileMode: fileMode,
            caFile: submission.caFile,
            expectedBytesUp: submission.expectedBytesUp
        )
    }

}
