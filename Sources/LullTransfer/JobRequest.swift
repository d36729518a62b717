import AsyncHTTPClient
import LullCore
import NIOHTTP1

/// Every request a transfer sends starts here, so each carries the job's own `headers` and a
/// `User-Agent`: Lull's (`lull/VERSION`; some servers refuse a request without one), or the
/// job's when its headers name one, in any case of the name.
extension HTTPClientRequest {
    static let userAgent = "lull/\(LullVersion.current)"

    init(of job: Job, url: String? = nil, method: HTTPMethod) {
        self.init(url: url ?? job.transfer?.url ?? "")
        self.method = method
        for (name, value) in job.transfer?.headers ?? [:] { headers.add(name: name, value: value) }
        if !headers.contains(name: "user-agent") { headers.add(name: "User-Agent", value: Self.userAgent) }
    }
}
