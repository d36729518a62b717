import Foundation
import LullCore

extension PushJob: WireKind {
    /// The kind-specific wire fields it takes, and those it accepts and drops (see `refuseFields`).
    static let wireFields: Set<String> = [
        "body", "method", "content_type", "idempotency_key", "expected_bytes_up",
    ]
    static let toleratedFields: Set<String> = ["form_field"]

    /// The push a wire submission describes; its body comes as text or as base64.
    init(_ submission: JobSubmission) throws(ValidationError) {
        try submission.refuseFields(except: Self.wireFields, tolerating: Self.toleratedFields)
        if submission.body != nil, submission.bodyBase64 != nil {
            throw ValidationError(.invalidValue, field: "body_base64", "give either body or body_base64, not both")
        }
        var body: [UInt8]?
        if let text = submission.body { body = Array(text.utf8) }
        if let base64 = submission.bodyBase64 {
            guard let data = Data(base64Encoded: base64) else {
                throw ValidationError(.invalidValue, field: "body_base64", "body_base64 is not valid base64")
            }
            body = [UInt8](data)
        }
        self.init(
            url: submission.url,
            method: submission.method?.uppercased(),
            headers: submission.headers,
            contentType: submission.contentType,
            body: body,
            idempotencyKey: submission.idempotencyKey,
            caFile: submission.caFile,
            expectedBytesUp: submission.expectedBytesUp
        )
    }
}
