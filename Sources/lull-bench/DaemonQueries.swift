import Foundation

/// Small reads of a running daemon's state over its socket, for the benchmarks' checks.
extension RawHTTPConnection {
    /// The JSON value at `path` (object keys) in the answer to `GET target`.
    func json(_ target: String, _ path: String...) throws -> Any? {
        let (status, body) = try exchange(Self.request("GET", target))
        guard status == 200 else { throw BenchError("GET \(target) answered \(status)") }
        var value: Any? = try JSONSerialization.jsonObject(with: Data(body))
        for key in path { value = (value as? [String: Any])?[key] }
        return value
    }

    /// A sample's value in `GET /metrics` (Prometheus text), e.g. `lull_sampler_running`.
    func metric(_ name: String) throws -> Double? {
        let (status, body) = try exchange(Self.request("GET", "/metrics"))
        guard status == 200 else { throw BenchError("GET /metrics answered \(status)") }
        for line in String(decoding: body, as: UTF8.self).split(separator: "\n")
        where line.hasPrefix(name + " ") || line.hasPrefix(name + "{") {
            return Double(line.split(separator: " ").last ?? "")
        }
        return nil
    }

    /// Polls `condition` every 20 ms for at most `timeout` seconds (a setup step, not a measurement).
    func wait(_ what: String, timeout: Double = 10, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            usleep(20_000)
        }
        throw BenchError("timed out after \(timeout) s waiting for \(what)")
    }
}
