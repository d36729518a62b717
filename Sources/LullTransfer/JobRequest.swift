import AsyncHTTPClient
import Foundation
import LullCore
import NIOHTTP1

/// Every request a transfer sends starts here, so each carries the job's own `headers` and a
/// `User-Agent`: Lull's (`lull/VERSION`; some servers refuse a request without one), or the
/// job's when its headers name one, in any case of the name.
extension HTTPClientRequest {
    static let userAgent = "lull/\(LullVersion.current)"
    /// What a request to another origin than the job's URL goes without, as across a redirect.
    static let credentialHeaders = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// `url`, when given, is one a server named (a tus upload's `Location`): on another origin
    /// than the job's URL it gets the job's headers but its credentials, the rule
    /// AsyncHTTPClient (and curl) apply to a redirect, so a server cannot send them elsewhere or
    /// over plain HTTP.
    init(of job: Job, url: String? = nil, method: HTTPMethod) {
        let jobURL = job.transfer?.url ?? ""
        self.init(url: url ?? jobURL)
        self.method = method
        for (name, value) in job.transfer?.headers ?? [:] { headers.add(name: name, value: value) }
        if let url, !Self.sameOrigin(url, jobURL) {
            for name in Self.credentialHeaders { headers.remove(name: name) }
        }
        if !headers.contains(name: "user-agent") { headers.add(name: "User-Agent", value: Self.userAgent) }
    }

    /// Same scheme, host and port (a missing port is the scheme's own).
    static func sameOrigin(_ one: String, _ other: String) -> Bool {
        func origin(_ text: String) -> (scheme: String, host: String, port: Int)? {
            guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
                let host = components.host?.lowercased()
            else { return nil }
            return (scheme, host, components.port ?? (scheme == "https" ? 443 : 80))
        }
        guard let one = origin(one), let other = origin(other) else { return false }
        return one == other
    }
}
