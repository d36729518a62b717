import Foundation
import LullAPI
import LullCore
import NIOHTTP1

/// What the router answers: a complete body (JSON, or text such as `/metrics`), a file's bytes,
/// or a stream that runs until the client leaves.
enum ControlResponse: Sendable {
    case complete(HTTPResponseStatus, contentType: String, Data, headers: [(String, String)] = [])
    case stream(contentType: String, producer: @Sendable (StreamWriter) async throws -> Void)
    /// A body read from a file as it is sent (a run job's log), with a known length.
    case file(HTTPResponseStatus, contentType: String, FileBody, headers: [(String, String)] = [])

    static func encode<T: Encodable>(
        _ status: HTTPResponseStatus,
        _ value: T,
        headers: [(String, String)] = []
    ) -> ControlResponse {
        do {
            return .json(status, try WireJSON.encoder().encode(value), headers: headers)
        } catch {
            return .error(
                APIError(.internalServerError, code: "internal_error", "could not encode the response: \(error)")
            )
        }
    }

    /// The job views: written by `JSONWriter`, which costs a fraction of JSONEncoder's time.
    static func encode<T: JSONWritable>(
        _ status: HTTPResponseStatus,
        _ value: T,
        headers: [(String, String)] = []
    ) -> ControlResponse {
        do {
            return .json(status, Data(try value.jsonBytes()), headers: headers)
        } catch {
            return .error(
                APIError(.internalServerError, code: "internal_error", "could not encode the response: \(error)")
            )
        }
    }

    static func json(_ status: HTTPResponseStatus, _ data: Data, headers: [(String, String)] = []) -> ControlResponse {
        .complete(status, contentType: "application/json", data, headers: headers)
    }

    static func error(_ error: APIError) -> ControlResponse {
        let body = APIErrorBody(code: error.code, message: error.message, field: error.field)
        let data =
            (try? WireJSON.encoder().encode(body)) ?? Data(#"{"error":{"code":"internal_error","message":"?"}}"#.utf8)
        return .json(error.status, data, headers: error.headers)
    }
}

/// Writes chunks of a streamed response; throws once the client has gone.
struct StreamWriter: Sendable {
    let write: @Sendable (String) async throws -> Void
}

/// An error answer: status, machine code, human message and, when it is about one, the field.
struct APIError: Error, Sendable {
    var status: HTTPResponseStatus
    var code: String
    var message: String
    var field: String?
    var headers: [(String, String)] = []

    init(
        _ status: HTTPResponseStatus,
        code: String,
        _ message: String,
        field: String? = nil,
        headers: [(String, String)] = []
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.headers = headers
    }
}
