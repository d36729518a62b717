import Foundation
import LullTestSupport

/// The control API inside the container, over curl on the Unix socket, as root or as a user.
struct ContainerAPI {
    let machine: NspawnMachine
    let socket: String

    struct Response {
        var status: Int
        var body: String
    }

    func request(
        _ method: String,
        _ path: String,
        body: [String: Any]? = nil,
        as user: String? = nil
    ) throws -> Response {
        var arguments = ["curl", "-s", "--unix-socket", socket, "-X", method, "-w", "\n%{http_code}"]
        var input: Data?
        if let body {
            input = try JSONSerialization.data(withJSONObject: body)
            arguments += ["-H", "Content-Type: application/json", "--data-binary", "@-"]
        }
        arguments.append("http://lull\(path)")
        if let user { arguments = ["runuser", "-u", user, "--"] + arguments }
        let result = try machine.run(arguments, input: input)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let body = lines.dropLast().joined(separator: "\n")
        return Response(
            status: Int(lines.last ?? "") ?? 0,
            body: result.status == 0 ? body : body + " (curl exited \(result.status): \(result.stderr))"
        )
    }

    func submit(_ body: [String: Any], as user: String? = nil) throws -> Int64 {
        let response = try request("POST", "/v1/jobs", body: body, as: user)
        guard response.status == 201,
            let id = try json(response.body)["id"] as? Int64 ?? (json(response.body)["id"] as? Int).map(Int64.init)
        else {
            throw NspawnError("submission refused (\(response.status)): \(response.body)")
        }
        return id
    }

    func state(_ id: Int64, as user: String? = nil) throws -> String? {
        let response = try request("GET", "/v1/jobs/\(id)", as: user)
        guard response.status == 200 else { return nil }
        return try json(response.body)["state"] as? String
    }

    /// The job's view, or nil when `user` cannot see it.
    func view(_ id: Int64, as user: String? = nil) throws -> [String: Any]? {
        let response = try request("GET", "/v1/jobs/\(id)", as: user)
        return response.status == 200 ? try json(response.body) : nil
    }

    /// Waits until the job is in `wanted` or another final state; returns that state.
    func waitForState(
        _ id: Int64,
        _ wanted: String,
        as user: String? = nil,
        timeout: Duration = .seconds(30)
    ) throws -> String {
        try machine.waitFor("job \(id) to become \(wanted)", timeout: timeout) { () -> String? in
            let state = try self.state(id, as: user)
            return [wanted, "succeeded", "failed", "cancelled", "expired"].contains(state ?? "") ? state : nil
        }
    }

    private func json(_ text: String) throws -> [String: Any] {
        (try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
