import Foundation
import LullCore

/// The body of `POST /v1/jobs`: what a client asks for, in wire form. Unknown fields are refused
/// by name, so a typo such as `destinaton` is an error rather than a silently ignored option.
public struct JobSubmission: Codable, Sendable, Equatable {
    public var kind: JobKind
    public var url: String
    public var destination: String?
    public var source: String?
    public var method: String?
    public var headers: [String: String]?
    public var contentType: String?
    /// push: the payload as UTF-8 text.
    public var body: String?
    /// push: the payload as base64, for binary data.
    public var bodyBase64: String?
    public var label: String?
    public var jobClass: String?

    public init(
        kind: JobKind, url: String, destination: String? = nil, source: String? = nil,
        method: String? = nil, headers: [String: String]? = nil, contentType: String? = nil,
        body: String? = nil, bodyBase64: String? = nil, label: String? = nil, jobClass: String? = nil
    ) {
        self.kind = kind
        self.url = url
        self.destination = destination
        self.source = source
        self.method = method
        self.headers = headers
        self.contentType = contentType
        self.body = body
        self.bodyBase64 = bodyBase64
        self.label = label
        self.jobClass = jobClass
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case kind, url, destination, source, method, headers
        case contentType = "content_type"
        case body
        case bodyBase64 = "body_base64"
        case label
        case jobClass = "class"
    }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.check(decoder, allowed: CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(JobKind.self, forKey: .kind)
        url = try container.decode(String.self, forKey: .url)
        destination = try container.decodeIfPresent(String.self, forKey: .destination)
        source = try container.decodeIfPresent(String.self, forKey: .source)
        method = try container.decodeIfPresent(String.self, forKey: .method)
        headers = try container.decodeIfPresent([String: String].self, forKey: .headers)
        contentType = try container.decodeIfPresent(String.self, forKey: .contentType)
        body = try container.decodeIfPresent(String.self, forKey: .body)
        bodyBase64 = try container.decodeIfPresent(String.self, forKey: .bodyBase64)
        label = try container.decodeIfPresent(String.self, forKey: .label)
        jobClass = try container.decodeIfPresent(String.self, forKey: .jobClass)
    }

    /// The domain spec this submission describes, before policy validation.
    public func spec() throws(ValidationError) -> JobSpec {
        if body != nil, bodyBase64 != nil {
            throw ValidationError(.invalidValue, field: "body_base64", "give either body or body_base64, not both")
        }
        var payload: [UInt8]?
        if let body { payload = Array(body.utf8) }
        if let bodyBase64 {
            guard let data = Data(base64Encoded: bodyBase64) else {
                throw ValidationError(.invalidValue, field: "body_base64", "body_base64 is not valid base64")
            }
            payload = [UInt8](data)
        }
        return JobSpec(
            kind: kind, url: url, destination: destination, source: source,
            method: method?.uppercased(), headers: headers, contentType: contentType, body: payload,
            label: label, jobClass: jobClass ?? JobClassName.default)
    }
}

/// The body of `POST /v1/jobs:batch`.
public struct BatchSubmission: Codable, Sendable {
    public var jobs: [JobSubmission]

    public init(jobs: [JobSubmission]) { self.jobs = jobs }

    enum CodingKeys: String, CodingKey, CaseIterable { case jobs }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.check(decoder, allowed: CodingKeys.self)
        jobs = try decoder.container(keyedBy: CodingKeys.self).decode([JobSubmission].self, forKey: .jobs)
    }
}
