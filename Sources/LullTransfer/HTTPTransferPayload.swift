import LullCore

/// What every HTTP transfer kind has: the URL it talks to, the headers it adds to every request
/// and the certificate authorities it trusts besides the system's. The shared request code
/// (clients, request headers, trust) asks this, never the kind.
protocol HTTPTransferPayload {
    var url: String { get }
    var headers: [String: String]? { get }
    var caFile: String? { get }
}

extension FetchJob: HTTPTransferPayload {}
extension PushJob: HTTPTransferPayload {}
extension UploadJob: HTTPTransferPayload {}

extension Job {
    /// The job's transfer settings; nil for a job that is not an HTTP transfer.
    var transfer: (any HTTPTransferPayload)? { spec.payload.contents as? any HTTPTransferPayload }
}
