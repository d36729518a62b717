import Foundation

// What the store writes with each state change: a job's result, failure and resume point, and
// an event's detail. They write themselves in the store's form, the keys and values of their
// synthesized `Encodable` form under a default `JSONEncoder` (property names, nil left out,
// times as seconds since 2001), which the store reads back with a default `JSONDecoder`: each
// state change skips JSONEncoder's tree of boxed values. `StoredRecordJSONTests` compares both.
// This is not the API's form (snake_case keys, ISO-8601 times): the API shows these values
// through its own views (`ResultView`, `ProgressView`, ...), never through these writers.

extension TransferProgress: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { json in
            json.member("bytesDone", bytesDone)
            json.member("bytesTotal", bytesTotal)
            json.member("bytesPerSecond", bytesPerSecond)
        }
    }
}

extension CommandUsage: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { json in
            json.member("cpuSeconds", cpuSeconds)
            json.member("cpuPercent", cpuPercent)
            json.member("memoryBytes", memoryBytes)
            json.member("ioReadBytes", ioReadBytes)
            json.member("ioWriteBytes", ioWriteBytes)
        }
    }
}

extension LinkBytes: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { json in
            json.member("ethernet", ethernet)
            json.member("wifi", wifi)
            json.member("cellular", cellular)
            json.member("other", other)
            json.member("unknown", unknown)
        }
    }
}

extension JobAccounting: JSONWritable {
    public func write(to writer: inout JSONWriter) throws {
        try writer.object { json in
            try json.member("bytesDown", bytesDown)
            try json.member("bytesUp", bytesUp)
            json.member("wallSeconds", wallSeconds)
            json.member("attempts", attempts)
            json.member("stops", stops)
            json.member("daemonCPUSeconds", daemonCPUSeconds)
        }
    }
}

extension JobResult: JSONWritable {
    public func write(to writer: inout JSONWriter) throws {
        try writer.object { json in
            json.member("httpStatus", httpStatus)
            json.member("bytes", bytes)
            json.member("sha256", sha256)
            json.member("path", path)
            json.member("notModified", notModified)
            json.member("etag", etag)
            json.member("lastModified", lastModified)
            json.member("file", file)
            json.member("responseHeaders", responseHeaders)
            json.member("responseBody", responseBody)
            json.member("bytesTransferred", bytesTransferred)
            json.member("uploadURL", uploadURL)
            try json.member("accounting", accounting)
            json.member("exitCode", exitCode)
            json.member("signal", signal)
            json.member("outputTail", outputTail)
            json.member("cpuSeconds", cpuSeconds)
            json.member("memoryPeakBytes", memoryPeakBytes)
            json.member("ioReadBytes", ioReadBytes)
            json.member("ioWriteBytes", ioWriteBytes)
            json.member("unit", unit)
            json.member("cgroup", cgroup)
        }
    }
}

/// Without `result`, which `JobFailure`'s coding keys leave out.
extension JobFailure: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { json in
            json.member("code", code)
            json.member("message", message)
            json.member("retryable", retryable)
            json.member("retryAfter", retryAfter)
        }
    }
}

extension ResumeState: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { json in
            json.member("validator", validator)
            json.member("offset", offset)
            json.member("uploadURL", uploadURL)
            json.member("sourceSize", sourceSize)
            json.member("sourceModified", sourceModified)
            json.member("transferredBytes", transferredBytes)
        }
    }
}

extension JobEventDetail: JSONWritable {
    public func write(to writer: inout JSONWriter) throws {
        try writer.object { json in
            try json.member("progress", progress)
            try json.member("usage", usage)
            try json.member("result", result)
            try json.member("failure", failure)
            json.member("attempt", attempt)
            json.member("message", message)
            json.member("retryAt", retryAt?.timeIntervalSinceReferenceDate)
            json.member("reason", reason)
        }
    }
}
