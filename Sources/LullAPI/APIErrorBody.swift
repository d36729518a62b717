/// Every error the API returns: `{"error": {"code", "message", "field"}}` with a 4xx/5xx status.
public struct APIErrorBody: Codable, Sendable, Error {
    public struct Detail: Codable, Sendable {
        public var code: String
        public var message: String
        public var field: String?

        public init(code: String, message: String, field: String?) {
            self.code = code
            self.message = message
            self.field = field
        }
    }

    public var error: Detail

    public init(code: String, message: String, field: String? = nil) {
        error = Detail(code: code, message: message, field: field)
    }
}
