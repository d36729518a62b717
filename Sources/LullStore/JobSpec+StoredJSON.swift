import Foundation
import LullCore

extension JobSpec {
    /// The `spec` column's JSON, written by `JSONWriter`: the keys and values of JobSpec's
    /// `Codable` form under a default `JSONEncoder` (property names, times as seconds since
    /// 2001), which `RowCodec` reads back with a default `JSONDecoder`. Every submission writes
    /// one, so it skips JSONEncoder's cost; StoredSpecJSONTests checks that it reads back equal.
    /// The kind writes its own members, in the sections release 0.1 put them (`StoredSpecSection`).
    package func storedJSON() throws -> String {
        let contents = payload.contents
        var json = JSONWriter(capacity: 512, encoder: JSONEncoder.init)
        try json.object { json in
            json.member("kind", kind)
            contents.writeStored(.target, to: &json)
            json.member("label", label)
            json.member("jobClass", jobClass)
            contents.writeStored(.details, to: &json)
            try json.member("retry", retry)
            try json.member("timeouts", timeouts)
            try json.member("constraints", constraints)
            json.member("notBefore", notBefore?.timeIntervalSinceReferenceDate)
            json.member("deadline", deadline?.timeIntervalSinceReferenceDate)
            json.member("onDeadline", onDeadline)
            contents.writeStored(.bytesUp, to: &json)
            try json.member("periodic", periodic)
            json.member("periodInterval", periodInterval)
            json.member("onCompleteUnit", onCompleteUnit)
            contents.writeStored(.trailing, to: &json)
            json.member("maxBytesPerSecond", maxBytesPerSecond)
        }
        // Written as `null`, a NaN or an infinity would make the stored job unreadable; the wire
        // decoder refuses them, so this guards the other ways in.
        guard !json.wroteNonFiniteNumber else {
            throw EncodingError.invalidValue(
                self,
                EncodingError.Context(codingPath: [], debugDescription: "a NaN or an infinity in the job's spec")
            )
        }
        return String(decoding: json.bytes, as: UTF8.self)
    }
}
