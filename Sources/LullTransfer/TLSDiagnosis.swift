import Foundation
import LullCore
import NIOCore
import NIOPosix
import NIOSSL

/// Puts a server certificate that failed verification in words, with a code a client can act
/// on: `tls_expired`, `tls_name_mismatch` or `tls_untrusted` (self-signed, or issued by an
/// authority nobody told us to trust). None is retryable: the same certificate fails the same
/// way. BoringSSL reports only CERTIFICATE_VERIFY_FAILED, so the reason is found by connecting
/// once more and reading the certificates the server presents; that handshake is always
/// refused, so nothing is ever sent to a server whose certificate did not verify.
enum TLSDiagnosis {
    enum Kind: Equatable {
        /// The chain did not verify (not trusted, self-signed, expired).
        case chain
        /// The chain verified, but not for the host asked for.
        case name

        init?(_ error: any Error) {
            if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
                self = .name
            } else if let ssl = error as? NIOSSLError, case .handshakeFailed(let boring) = ssl,
                Self.failedVerification(boring)
            {
                self = .chain
            } else if let boring = error as? BoringSSLError, Self.failedVerification(boring) {
                self = .chain
            } else {
                return nil
            }
        }

        private static func failedVerification(_ error: BoringSSLError) -> Bool {
            guard case .sslError(let stack) = error else { return false }
            return stack.contains { "\($0)".contains("CERTIFICATE_VERIFY_FAILED") }
        }
    }

    static func failure(
        _ kind: Kind,
        url: String,
        tls: TLSConfiguration?,
        proxied: Bool,
        group: any EventLoopGroup,
        timeout: TimeAmount
    ) async -> JobFailure {
        let components = URLComponents(string: url)
        let host = components?.host ?? url
        // Through a proxy the server is reached with a CONNECT this diagnosis does not make; an
        // http:// URL failed TLS only after a redirect, to a server this URL does not name.
        let direct = !proxied && components?.scheme?.lowercased() == "https"
        let chain =
            direct ? await peerChain(host: host, port: components?.port ?? 443, group: group, timeout: timeout) : nil
        return describe(kind, host: host, chain: chain?.map(CertificateFacts.init), extraTrust: tls != nil, now: Date())
    }

    /// The failure, in words, for the certificates the server presented (nil: not seen).
    static func describe(
        _ kind: Kind,
        host: String,
        chain: [CertificateFacts]?,
        extraTrust: Bool,
        now: Date
    ) -> JobFailure {
        let trusting = extraTrust ? "neither this system nor the ca_file trusts" : "this system does not trust"
        let advice =
            "if you trust it, give its certificate (PEM) as the job's ca_file (lullctl --ca-file) or its class's ca_file"
        guard let leaf = chain?.first else {
            return kind == .name
                ? JobFailure(
                    code: "tls_name_mismatch",
                    message: "the certificate for \(host) is for another name",
                    retryable: false
                )
                : JobFailure(
                    code: "tls_untrusted",
                    message: "the certificate for \(host) did not verify: not trusted, expired or for another name",
                    retryable: false
                )
        }
        let names = leaf.names.isEmpty ? "no name" : leaf.names.joined(separator: ", ")
        let otherName = leaf.covers(host) ? "" : "; it is also for another name (\(names))"
        if kind == .name {
            return JobFailure(
                code: "tls_name_mismatch",
                message: "the certificate for \(host) is for another name: \(names)",
                retryable: false
            )
        }
        if leaf.notValidAfter < now {
            return JobFailure(
                code: "tls_expired",
                message: "the certificate for \(host) expired on \(Self.text(leaf.notValidAfter))\(otherName)",
                retryable: false
            )
        }
        if leaf.notValidBefore > now {
            return JobFailure(
                code: "tls_expired",
                message:
                    "the certificate for \(host) is not valid before \(Self.text(leaf.notValidBefore)) (is this machine's clock right?)\(otherName)",
                retryable: false
            )
        }
        if leaf.selfIssued {
            return JobFailure(
                code: "tls_untrusted",
                message: "the certificate for \(host) is self-signed, and \(trusting) it\(otherName); \(advice)",
                retryable: false
            )
        }
        let issuer = leaf.issuerName.map { "\"\($0)\"" } ?? "an unnamed authority"
        return JobFailure(
            code: "tls_untrusted",
            message:
                "the certificate for \(host) is not trusted: it is issued by \(issuer), an authority \(trusting)\(otherName); \(advice)",
            retryable: false
        )
    }

    private static func text(_ date: Date) -> String {
        Date.ISO8601FormatStyle().format(date)
    }

    /// The certificates `host` presents, from a handshake this side refuses.
    static func peerChain(
        host: String,
        port: Int,
        group: any EventLoopGroup,
        timeout: TimeAmount
    ) async -> [NIOSSLCertificate]? {
        guard let context = try? NIOSSLContext(configuration: .makeClientConfiguration()) else { return nil }
        let loop = group.next()
        let seen = loop.makePromise(of: [NIOSSLCertificate].self)
        let serverName = CertificateFacts.address(of: host) == nil ? host : nil
        let bootstrap = ClientBootstrap(group: loop).connectTimeout(timeout).channelInitializer { channel in
            do {
                let handler = try NIOSSLClientHandler(context: context, serverHostname: serverName) { chain, verdict in
                    seen.succeed(chain)
                    verdict.succeed(NIOSSLVerificationResult.failed)
                }
                try channel.pipeline.syncOperations.addHandler(handler)
                return channel.eventLoop.makeSucceededVoidFuture()
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
        let timer = loop.scheduleTask(in: timeout) { seen.fail(ChannelError.connectTimeout(timeout)) }
        defer { timer.cancel() }
        do {
            let channel = try await bootstrap.connect(host: host, port: port).get()
            channel.closeFuture.whenComplete { _ in seen.fail(ChannelError.alreadyClosed) }
            let chain = try? await seen.futureResult.get()
            try? await channel.close()
            return chain
        } catch {
            seen.fail(error)
            return nil
        }
    }
}
