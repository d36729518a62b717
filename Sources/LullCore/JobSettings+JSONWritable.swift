// The small settings objects a job spec carries write themselves with the keys and values of
// their synthesized `Encodable` form (nil left out), so that neither the stored spec nor the
// job view needs a `JSONEncoder` for them. `StoredSpecJSONTests` and `JobViewJSONTests`
// compare both with `JSONEncoder`'s output.

extension RetrySettings: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { json in
            json.member("max_attempts", maxAttempts)
            json.member("base_seconds", baseSeconds)
            json.member("cap_seconds", capSeconds)
        }
    }
}

extension TimeoutSettings: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { json in
            json.member("connect_seconds", connectSeconds)
            json.member("idle_seconds", idleSeconds)
            json.member("total_seconds", totalSeconds)
        }
    }
}

extension PeriodicSchedule: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { json in
            json.member("every_seconds", every)
            json.member("flex_seconds", flex)
            json.member("jitter_seconds", jitter)
            json.member("max_every_seconds", maxEvery)
        }
    }
}

/// `JobConstraints` declares no coding keys, so its JSON (the stored spec's) has property names.
extension JobConstraints: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { json in
            json.member("network", network)
            json.member("requiresAC", requiresAC)
            json.member("minBattery", minBattery)
            if requiresIdle { json.member("requiresIdle", requiresIdle) }
        }
    }
}
