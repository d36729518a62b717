import Foundation
import LullCore

// The event stream writes one of these per event, and a page of them per wake-up: without
// JSONEncoder, as the job views are. JobViewJSONTests holds them to JSONEncoder's meaning.

extension EventView: JSONWritable {
    public func write(to writer: inout JSONWriter) throws {
        try writer.object { json in
            json.member("seq", seq)
            json.member("job_id", jobId)
            json.member("owner_uid", ownerUid)
            try json.member("time", time)
            json.member("type", type)
            json.member("state", state)
            json.member("attempt", attempt)
            try json.member("progress", progress)
            try json.member("usage", usage)
            try json.member("result", result)
            try json.member("error", error)
            json.member("message", message)
            try json.member("retry_at", retryAt)
            json.member("reason", reason)
        }
    }
}

extension EventPageView: JSONWritable {
    public func write(to writer: inout JSONWriter) throws {
        try writer.object { json in
            try json.member("events", events)
            json.member("last_seq", lastSeq)
        }
    }
}
