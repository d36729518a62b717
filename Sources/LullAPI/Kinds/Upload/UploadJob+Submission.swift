import LullCore

extension UploadJob: WireKind {
    /// The kind-specific wire fields it takes, and those it accepts and drops (see `refuseFields`).
    static let wireFields: Set<String> = [
        "source", "method", "content_type", "protocol", "form_field", "chunk_bytes", "expected_bytes_up",
    ]
    static let toleratedFields: Set<String> = ["idempotency_key"]

    /// The upload a wire submission describes.
    init(_ submission: JobSubmission) throws(ValidationError) {
        try submission.refuseFields(except: Self.wireFields, tolerating: Self.toleratedFields)
        self.init(
            url: submission.url,
            source: try submission.required(submission.source, "source"),
            method: submission.method?.uppercased(),
            headers: submission.headers,
            contentType: submission.contentType,
            uploadProtocol: submission.uploadProtocol,
            formField: submission.formField,
            chunkBytes: submission.chunkBytes,
            caFile: submission.caFile,
            expectedBytesUp: submission.expectedBytesUp
        )
    }
}
