import Foundation
import LullCore

extension JobSpec {
    /// The `spec` column's JSON, written by `JSONWriter`: the keys and values of JobSpec's
    /// `Codable` form under a default `JSONEncoder` (property names, times as seconds since
    /// 2001), which `RowCodec` reads back with a default `JSONDecoder`. Every submission writes
    /// one, so it skips JSONEncoder's cost; StoredSpecJSONTests checks that it reads back equal.
    func storedJSON() throws -> String {
        var json = JSONWriter(capacity: 512, encoder: JSONEncoder.init)
        try json.object { json in
            json.member("kind", kind)
            json.member("url", url)
            json.member("destination", destination)
            json.member("source", source)
            json.member("method", method)
            json.member("headers", headers)
            json.member("contentType", contentType)
            if let body {
                json.key("body")
                json.array(body) { json, byte in json.integer(byte) }
            }
            json.member("label", label)
            json.member("jobClass", jobClass)
            json.member("sha256", sha256)
            json.member("expectedBytes", expectedBytes)
            json.member("maxBytes", maxBytes)
            json.member("uploadProtocol", uploadProtocol)
            json.member("formField", formField)
            json.member("idempotencyKey", idempotencyKey)
            try json.member("retry", retry)
            try json.member("timeouts", timeouts)
            try json.member("constraints", constraints)
            json.member("notBefore", notBefore?.timeIntervalSinceReferenceDate)
            json.member("deadline", deadline?.timeIntervalSinceReferenceDate)
            json.member("onDeadline", onDeadline)
            json.member("expectedBytesUp", expectedBytesUp)
            try json.member("periodic", periodic)
            json.member("periodInterval", periodInterval)
            json.member("onCompleteUnit", onCompleteUnit)
            json.member("fileMode", fileMode?.rawValue)
            json.member("chunkBytes", chunkBytes)
            json.member("caFile", caFile)
        }
        return String(decoding: json.bytes, as: UTF8.self)
    }
}
