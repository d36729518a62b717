import Foundation
import LullCore

// The job views every submission and every list answers with, written without JSONEncoder.
// Each writes the keys of its `CodingKeys`; JobViewJSONTests checks that the result decodes to
// the same value, with the same keys, as JSONEncoder's.

extension JobView: JSONWritable {
    public func write(to writer: inout JSONWriter) throws {
        try writer.object { json in
            json.member("id", id)
            json.member("kind", kind)
            json.member("state", state)
            json.member("owner_uid", ownerUid)
            json.member("url", url)
            json.member("destination", destination)
            json.member("source", source)
            json.member("method", method)
            json.member("label", label)
            json.member("class", jobClass)
            try json.member("created_at", createdAt)
            try json.member("updated_at", updatedAt)
            json.member("attempts", attempts)
            json.member("stops", stops)
            json.member("last_stop_reason", lastStopReason)
            try json.member("progress", progress)
            try json.member("usage", usage)
            try json.member("result", result)
            try json.member("error", error)
            json.member("sha256", sha256)
            json.member("expected_bytes", expectedBytes)
            json.member("max_bytes", maxBytes)
            json.member("mode", mode)
            json.member("protocol", uploadProtocol)
            json.member("chunk_bytes", chunkBytes)
            json.member("ca_file", caFile)
            try json.member("retry", retry)
            try json.member("timeouts", timeouts)
            json.member("max_bytes_per_second", maxBytesPerSecond)
            try json.member("retry_at", retryAt)
            try json.member("waiting_for", waitingFor)
            json.member("network", network)
            json.member("requires_ac", requiresAC)
            json.member("min_battery", minBattery)
            json.member("requires_idle", requiresIdle)
            try json.member("not_before", notBefore)
            try json.member("deadline", deadline)
            json.member("on_deadline", onDeadline)
            try json.member("periodic", periodic)
            json.member("period_seconds", periodSeconds)
            json.member("on_complete_unit", onCompleteUnit)
            if let argv {
                json.key("argv")
                json.array(argv) { json, word in json.string(word) }
            }
            json.member("working_directory", workingDirectory)
            json.member("environment", environment)
            if let retryExitCodes {
                json.key("retry_exit_codes")
                json.array(retryExitCodes) { json, code in json.integer(code) }
            }
            json.member("stop_grace_seconds", stopGraceSeconds)
            json.member("nice", nice)
            json.member("output_tail_bytes", outputTailBytes)
            json.member("cpu_weight", cpuWeight)
            json.member("memory_max", memoryMax)
            json.member("io_weight", ioWeight)
            json.member("tasks_max", tasksMax)
            json.member("unit", unit)
        }
    }
}

extension ProgressView: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { json in
            json.member("bytes_done", bytesDone)
            json.member("bytes_total", bytesTotal)
            json.member("bytes_per_second", bytesPerSecond)
            json.member("eta_seconds", etaSeconds)
        }
    }
}

extension ResultView: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { json in
            json.member("http_status", httpStatus)
            json.member("bytes", bytes)
            json.member("sha256", sha256)
            json.member("path", path)
            json.member("not_modified", notModified)
            json.member("etag", etag)
            json.member("last_modified", lastModified)
            json.member("response_headers", responseHeaders)
            json.member("response_body", responseBody)
            json.member("bytes_transferred", bytesTransferred)
            json.member("upload_url", uploadURL)
            if let accounting {
                json.key("accounting")
                accounting.write(to: &json)
            }
            json.member("exit_code", exitCode)
            json.member("signal", signal)
            json.member("output_tail", outputTail)
            json.member("cpu_seconds", cpuSeconds)
            json.member("memory_peak_bytes", memoryPeakBytes)
            json.member("io_read_bytes", ioReadBytes)
            json.member("io_write_bytes", ioWriteBytes)
            json.member("unit", unit)
            json.member("cgroup", cgroup)
        }
    }
}

extension AccountingView: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { json in
            json.member("bytes_down", bytesDown)
            json.member("bytes_up", bytesUp)
            json.member("wall_seconds", wallSeconds)
            json.member("attempts", attempts)
            json.member("stops", stops)
            json.member("daemon_cpu_seconds", daemonCPUSeconds)
        }
    }
}

extension FailureView: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { json in
            json.member("code", code)
            json.member("message", message)
            json.member("retryable", retryable)
            json.member("retry_after_seconds", retryAfterSeconds)
        }
    }
}

extension WaitingReasonView: JSONWritable {
    public func write(to writer: inout JSONWriter) throws {
        try writer.object { json in
            json.member("code", code)
            json.member("text", text)
            json.member("seen", seen)
            json.member("limit", limit)
            json.member("setting", setting)
            json.member("class", jobClass)
            json.member("config", config)
            json.member("from_job", fromJob)
            try json.member("until", until)
        }
    }
}

extension JobListView: JSONWritable {
    public func write(to writer: inout JSONWriter) throws {
        try writer.object { json in
            try json.member("jobs", jobs)
            json.member("next_after", nextAfter)
        }
    }
}

extension BatchView: JSONWritable {
    public func write(to writer: inout JSONWriter) throws {
        try writer.object { json in try json.member("jobs", jobs) }
    }
}
