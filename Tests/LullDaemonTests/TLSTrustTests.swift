import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

@testable import LullDaemon

/// Servers whose certificate the system does not trust: the job fails at once, for good, with a
/// code and words that say why; a job (or its class) that names the authority in `ca_file`
/// trusts it. The authority and the servers' certificates are made with openssl at test time.
@Suite(.serialized, .enabled(if: TLSServerProcess.isAvailable, "needs openssl (make test installs it)"))
struct TLSTrustTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/tls_file_server.py").path

    /// A file server with a certificate of `certificates` and a file at /data.bin.
    static func serve(
        _ certificates: TestCertificates,
        _ name: String,
        ip: String = "127.0.0.1",
        expired: Bool = false,
        content: [UInt8]
    ) throws -> TLSFileServer {
        let (certificate, key) = try certificates.server(name, ip: ip, expired: expired)
        let root = certificates.directory + "/www-" + name
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Data(content).write(to: URL(fileURLWithPath: root + "/data.bin"))
        return try TLSFileServer(script: script, certificate: certificate, key: key, root: root)
    }

    static func fetch(_ url: String, to path: String, caFile: String? = nil) -> JobSubmission {
        JobSubmission(kind: .fetch, url: url, destination: path, retry: RetrySettings(maxAttempts: 5), caFile: caFile)
    }

    @Test func anUntrustedAuthorityFailsAtOnceAndCAFileTrustsIt() async throws {
        let content = TestHTTPServer.bytes(count: 256 << 10, seed: 61)
        try await withDaemon(config: fastRetries) { daemon, client in
            let certificates = try TestCertificates(directory: daemon.directory.appendingPathComponent("pki").path)
            let server = try Self.serve(certificates, "good", content: content)
            defer { server.stop() }
            let out = daemon.directory.appendingPathComponent("out").path

            let refused = try await client.submit(Self.fetch(server.url("/data.bin"), to: out + "-refused"))
            let failed = try await awaitJob(
                refused.id,
                in: [.succeeded, .failed],
                client: client,
                timeout: .seconds(30)
            )
            #expect(failed.state == .failed)
            #expect(failed.attempts == 1)
            #expect(failed.error?.code == "tls_untrusted")
            #expect(failed.error?.retryable == false)
            let message = failed.error?.message ?? ""
            #expect(message.contains("certificate for 127.0.0.1 is not trusted"), "\(message)")
            #expect(message.contains("Lull Test CA"), "\(message)")
            print("without ca_file: \(failed.error?.code ?? "-"): \(message)")

            let trusted = try await client.submit(
                Self.fetch(server.url("/data.bin"), to: out + "-trusted", caFile: certificates.caFile)
            )
            #expect(trusted.caFile == certificates.caFile)
            let done = try await awaitJob(trusted.id, in: [.succeeded, .failed], client: client, timeout: .seconds(30))
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            let fetched = try Data(contentsOf: URL(fileURLWithPath: out + "-trusted"))
            #expect(TestHTTPServer.sha256([UInt8](fetched)) == TestHTTPServer.sha256(content))
        }
    }

    @Test func anExpiredCertificateAndOneForAnotherNameHaveTheirOwnCodes() async throws {
        let content = TestHTTPServer.bytes(count: 4096, seed: 62)
        try await withDaemon(config: fastRetries) { daemon, client in
            let certificates = try TestCertificates(directory: daemon.directory.appendingPathComponent("pki").path)
            let expired = try Self.serve(certificates, "expired", expired: true, content: content)
            defer { expired.stop() }
            let otherName = try Self.serve(certificates, "other", ip: "127.0.0.2", content: content)
            defer { otherName.stop() }
            let out = daemon.directory.appendingPathComponent("out").path
            for (server, code, words) in [
                (expired, "tls_expired", "certificate for 127.0.0.1 expired on"),
                (otherName, "tls_name_mismatch", "certificate for 127.0.0.1 is for another name: 127.0.0.2"),
            ] {
                let job = try await client.submit(
                    Self.fetch(server.url("/data.bin"), to: out + "-\(code)", caFile: certificates.caFile)
                )
                let failed = try await awaitJob(
                    job.id,
                    in: [.succeeded, .failed],
                    client: client,
                    timeout: .seconds(30)
                )
                #expect(failed.state == .failed)
                #expect(failed.attempts == 1)
                #expect(failed.error?.code == code)
                #expect(failed.error?.message.contains(words) == true, "\(failed.error?.message ?? "")")
                print("\(code): \(failed.error?.message ?? "")")
            }
        }
    }

    /// A self-signed certificate (openssl s_server's, no subjectAltName) says so.
    @Test func aSelfSignedCertificateSaysSo() async throws {
        try await withDaemon(config: fastRetries) { daemon, client in
            let server = try TLSServerProcess(directory: daemon.directory.appendingPathComponent("self").path)
            try server.start()
            defer { server.stop() }
            let job = try await client.submit(
                Self.fetch(server.url, to: daemon.directory.appendingPathComponent("self-out").path)
            )
            let failed = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(30))
            #expect(failed.attempts == 1)
            #expect(failed.error?.code == "tls_untrusted")
            let message = failed.error?.message ?? ""
            #expect(
                message.contains("certificate for 127.0.0.1 is self-signed, and this system does not trust it"),
                "\(message)"
            )
        }
    }

    /// A class's `ca_file` (read by the daemon) trusts the authority for every job of the class.
    @Test func aClassCAFileTrustsItsAuthority() async throws {
        let content = TestHTTPServer.bytes(count: 4096, seed: 63)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-class-ca-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certificates = try TestCertificates(directory: directory)
        let config = fastRetries + "\n[classes.lab]\nca_file = \"\(certificates.caFile)\"\n"
        try await withDaemon(config: config) { daemon, client in
            let server = try Self.serve(certificates, "class", content: content)
            defer { server.stop() }
            var submission = Self.fetch(
                server.url("/data.bin"),
                to: daemon.directory.appendingPathComponent("class-out").path
            )
            submission.jobClass = "lab"
            let job = try await client.submit(submission)
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(30))
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
        }
    }

    /// A class's ca_file is checked when the config is read, naming the key.
    @Test func aClassCAFileIsCheckedWithTheConfig() throws {
        do {
            _ = try ConfigLoader.parse("[classes.lab]\nca_file = \"/nonexistent/ca.pem\"\n", file: "t.toml")
            Issue.record("a missing class ca_file was accepted")
        } catch {
            #expect(
                error.description.contains(
                    "t.toml:2: classes.lab.ca_file: cannot read the CA file /nonexistent/ca.pem"
                ),
                "\(error)"
            )
        }
    }

    /// ca_file is checked at submission, with the submitter's rights: a file that is missing or
    /// holds no certificate is refused naming the field.
    @Test func aCAFileThatIsNoCertificateIsRefusedAtSubmission() async throws {
        try await withDaemon(config: holdEverything) { daemon, client in
            let notPEM = daemon.directory.appendingPathComponent("not.pem").path
            try Data("hello\n".utf8).write(to: URL(fileURLWithPath: notPEM))
            for (path, words) in [
                (notPEM, "BEGIN CERTIFICATE"), (notPEM + ".missing", "No such file"), ("relative.pem", "absolute path"),
            ] {
                do {
                    _ = try await client.submit(
                        Self.fetch(
                            "https://127.0.0.1:9/x",
                            to: daemon.directory.appendingPathComponent("x").path,
                            caFile: path
                        )
                    )
                    Issue.record("accepted ca_file \(path)")
                } catch LullClientError.api(let status, let detail) {
                    #expect(status == 400)
                    #expect(detail.field == "ca_file")
                    #expect(detail.message.contains(words), "\(detail.message)")
                }
            }
        }
    }
}
