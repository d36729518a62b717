import Crypto
import Foundation
import LullCore
import NIOSSL

#if canImport(Glibc)
import Glibc
#endif

/// The certificate authorities a job trusts besides the system's: its class's `ca_file`, read
/// by the daemon, and its own `ca_file`, read with the owner's rights like every file a job
/// touches. Read at each attempt, so a file that changed is trusted as it is now; clients are
/// kept per `digest`, so a changed file gets a client of its own.
public struct CertificateAuthorities: Sendable {
    let certificates: [NIOSSLCertificate]
    /// SHA-256 of the files' paths and contents.
    let digest: String

    /// A CA bundle is small; past this a path names something else.
    static let maxFileBytes = 4 << 20

    static func load(
        for job: Job,
        settings: TransferSettings,
        files: FileAccess
    ) async throws -> CertificateAuthorities? {
        var loaded: [(path: String, bytes: [UInt8])] = []
        if let path = settings.classCAFiles[job.spec.jobClass] {
            loaded.append((path, try await files.pool.runIfActive { try read(path) }))
        }
        if let path = job.transfer?.caFile {
            loaded.append((path, try await files.run(as: job.owner) { try read(path) }))
        }
        guard !loaded.isEmpty else { return nil }
        var certificates: [NIOSSLCertificate] = []
        var hash = SHA256()
        for (path, bytes) in loaded {
            switch parse(bytes) {
            case .success(let found): certificates += found
            case .failure(let problem):
                let setting =
                    path == job.transfer?.caFile ? "the job's ca_file" : "[classes.\(job.spec.jobClass)] ca_file"
                throw JobFailure(
                    code: "ca_file_invalid",
                    message: "\(setting) \(path) \(problem.text)",
                    retryable: false
                )
            }
            hash.update(data: Array(path.utf8) + [0] + bytes)
        }
        return CertificateAuthorities(
            certificates: certificates,
            digest: hash.finalize().map { String(format: "%02x", $0) }.joined()
        )
    }

    /// The bytes of a CA file; the caller has taken on the identity that may read it.
    static func read(_ path: String) throws -> [UInt8] {
        let (fd, info) = try RegularFile.open(path, flags: O_RDONLY | O_CLOEXEC, operation: "read the CA file")
        defer { close(fd) }
        guard info.st_size <= maxFileBytes else {
            throw JobFailure(
                code: "ca_file_invalid",
                message:
                    "CA file \(path) is \(info.st_size) bytes; a PEM bundle of certificates is far smaller (limit \(maxFileBytes))",
                retryable: false
            )
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(done)) }
            guard n > 0 else {
                if n < 0 { throw FileFailure(operation: "read the CA file", path: path, errno: errno) }
                break
            }
            done += n
        }
        return Array(bytes.prefix(done))
    }

    struct Problem: Error {
        let text: String
    }

    /// The certificates of a PEM bundle, or what is wrong with it in words.
    static func parse(_ bytes: [UInt8]) -> Result<[NIOSSLCertificate], Problem> {
        guard bytes.count <= maxFileBytes else {
            return .failure(Problem(text: "is larger than \(maxFileBytes) bytes"))
        }
        guard let found = try? NIOSSLCertificate.fromPEMBytes(bytes) else {
            return .failure(Problem(text: "is not a PEM file of certificates (-----BEGIN CERTIFICATE----- blocks)"))
        }
        guard !found.isEmpty else {
            return .failure(Problem(text: "holds no certificate (-----BEGIN CERTIFICATE----- blocks)"))
        }
        return .success(found)
    }

    /// What is wrong with a CA file an admin or a submission names, or nil when it serves:
    /// a regular file readable now, with at least one PEM certificate.
    public static func problem(with path: String) -> String? {
        do {
            switch parse(try read(path)) {
            case .success: return nil
            case .failure(let problem): return "\(path) \(problem.text)"
            }
        } catch let failure as FileFailure {
            return failure.description
        } catch let failure as JobFailure {
            return failure.message
        } catch {
            return "cannot read \(path): \(error)"
        }
    }
}
