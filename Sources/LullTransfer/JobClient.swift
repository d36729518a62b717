import AsyncHTTPClient
import LullCore
import NIOCore
import NIOSSL

/// The HTTP client one attempt of a job sends through: the route `HTTPClients` picks for its
/// URL and timeout, and the extra certificate authorities it trusts (its class's and its own
/// `ca_file`) as each request's TLS configuration. AsyncHTTPClient keys its connections and its
/// TLS contexts by that configuration, whose trust roots are the certificates themselves, so a
/// CA file that changed (it is read again at each attempt) gets connections of its own.
/// A certificate that fails verification is put in words (`TLSDiagnosis`).
struct JobClient: Sendable {
    let client: HTTPClient
    let tls: TLSConfiguration?
    let clients: HTTPClients
    let connectTimeout: TimeAmount

    func execute(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse {
        var request = request
        if let tls { request.tlsConfiguration = tls }
        do {
            return try await client.execute(request, timeout: timeout)
        } catch {
            guard let kind = TLSDiagnosis.Kind(error) else { throw error }
            throw await TLSDiagnosis.failure(
                kind,
                url: request.url,
                tls: tls,
                proxied: clients.isProxied(request.url),
                group: clients.eventLoopGroup,
                timeout: connectTimeout
            )
        }
    }
}

extension HTTPClients {
    /// The client for one attempt of `job`; reads the CA files it trusts.
    func client(for job: Job, settings: TransferSettings, files: FileAccess) async throws -> JobClient {
        if let unusable = proxy.unusable(for: job.transfer?.url ?? "") {
            throw JobFailure(
                code: "proxy_unusable",
                message:
                    "\(unusable.variable) in lulld's environment cannot be used: \(unusable.reason). Change it in the daemon's environment (e.g. `systemctl edit lulld`) and restart lulld, or add the host to no_proxy",
                retryable: false
            )
        }
        let authorities = try await CertificateAuthorities.load(for: job, settings: settings, files: files)
        var tls: TLSConfiguration?
        if let authorities {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.additionalTrustRoots = [.certificates(authorities.certificates)]
            tls = configuration
        }
        let seconds = job.spec.timeouts?.connectSeconds ?? settings.connectTimeout
        return JobClient(
            client: client(for: job, marking: settings.classTraffic[job.spec.jobClass] ?? .none),
            tls: tls,
            clients: self,
            connectTimeout: .milliseconds(Int64(seconds * 1000))
        )
    }
}
