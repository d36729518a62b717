/// The small settings objects a job spec carries, written directly with the keys and values of
/// their synthesized `Encodable` form (nil left out), so that neither the stored spec nor the
/// job view needs a `JSONEncoder` for them. `StoredSpecJSONTests` and `JobViewJSONTests`
/// compare both with `JSONEncoder`'s output.
extension JSONWriter {
    public mutating func member(_ name: StaticString, _ value: RetrySettings?) {
        guard let value else { return }
        key(name)
        object { json in
            json.member("max_attempts", value.maxAttempts)
            json.member("base_seconds", value.baseSeconds)
            json.member("cap_seconds", value.capSeconds)
        }
    }

    public mutating func member(_ name: StaticString, _ value: TimeoutSettings?) {
        guard let value else { return }
        key(name)
        object { json in
            json.member("connect_seconds", value.connectSeconds)
            json.member("idle_seconds", value.idleSeconds)
            json.member("total_seconds", value.totalSeconds)
        }
    }

    public mutating func member(_ name: StaticString, _ value: PeriodicSchedule?) {
        guard let value else { return }
        key(name)
        object { json in
            json.member("every_seconds", value.every)
            json.member("flex_seconds", value.flex)
            json.member("jitter_seconds", value.jitter)
            json.member("max_every_seconds", value.maxEvery)
        }
    }

    /// The stored spec's form: `JobConstraints` declares no coding keys, so its property names.
    public mutating func member(_ name: StaticString, _ value: JobConstraints?) {
        guard let value else { return }
        key(name)
        object { json in
            json.member("network", value.network)
            json.member("requiresAC", value.requiresAC)
            json.member("minBattery", value.minBattery)
        }
    }
}
