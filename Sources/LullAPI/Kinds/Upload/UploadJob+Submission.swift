import LullCore

extension UploadJob: WireKind {
    /// The upload a wire submission describes.
    init(_ submission: JobSubmission) throws(ValidationError) {
        try submission.refuseFields(
            except: [
                "source", "method", "content_type", "protocol", "form_field", "chunk_bytes", "expected_bytes_up",
            ],
            tolerating: ["idempotency_key"]
        )
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
