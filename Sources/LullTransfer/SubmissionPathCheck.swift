import LullCore

#if canImport(Glibc)
import Glibc
#endif

/// What can be known about a job's files when it is submitted, checked with the owner's rights:
/// the source of an upload is a file the owner may read; the destination of a fetch is in a
/// directory that exists and that the owner may write, and does not replace a file the owner
/// may not replace; a `ca_file` is a PEM file of certificates the owner may read. A mistake is
/// then answered at once, naming the part that is missing, instead of being found after a
/// download. The attempt checks again when it starts.
extension FileAccess {
    public func checkPaths(of spec: JobSpec, owner: OwnerID) async throws(ValidationError) {
        if let problem = await pathProblems(of: [spec], owner: owner)[0] { throw problem }
    }

    /// Each spec's problem (or nil), all checked in one visit to the thread pool: a batch of a
    /// hundred jobs costs one hand-off, not a hundred.
    public func pathProblems(of specs: [JobSpec], owner: OwnerID) async -> [ValidationError?] {
        do {
            return try await run(as: owner) { specs.map { Self.pathProblem(of: $0, owner: owner) } }
        } catch {
            // The identity could not be taken on: the attempt will say why; do not refuse here.
            return Array(repeating: nil, count: specs.count)
        }
    }

    /// The problem with `spec`'s paths, checked on the calling thread with its rights.
    package static func pathProblem(of spec: JobSpec, owner: OwnerID) -> ValidationError? {
        if let caFile = (spec.payload.contents as? any HTTPTransferPayload)?.caFile,
            let problem = CertificateAuthorities.problem(with: caFile)
        {
            return ValidationError(
                .invalidValue,
                field: "ca_file",
                "ca_file: \(problem); give a PEM file of certificate authorities that you may read"
            )
        }
        return (spec.payload.contents as? any OwnedPaths)?.pathProblem(owner: owner)
    }

    static func sourceProblem(_ source: String) -> ValidationError? {
        var info = stat()
        guard stat(source, &info) == 0 else { return pathError("source", source, errno, doing: "read") }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            return ValidationError(
                .invalidValue,
                field: "source",
                "source \(source) is not a regular file; give the file to send"
            )
        }
        guard faccessat(AT_FDCWD, source, R_OK, AT_EACCESS) == 0 else {
            return pathError("source", source, errno, doing: "read")
        }
        return nil
    }

    package static func destinationProblem(_ destination: String, owner: OwnerID) -> ValidationError? {
        let directory = PathText.directory(of: destination)
        var directoryInfo = stat()
        guard stat(directory, &directoryInfo) == 0 else {
            return pathError("destination", directory, errno, doing: "write into", directory: true)
        }
        guard (directoryInfo.st_mode & S_IFMT) == S_IFDIR else {
            return ValidationError(
                .invalidValue,
                field: "destination",
                "\(directory) is not a directory, so \(destination) cannot be created"
            )
        }
        guard faccessat(AT_FDCWD, directory, W_OK | X_OK, AT_EACCESS) == 0 else {
            return pathError("destination", directory, errno, doing: "write into", directory: true)
        }
        var fileInfo = stat()
        guard lstat(destination, &fileInfo) == 0 else { return nil }
        if (fileInfo.st_mode & S_IFMT) == S_IFDIR {
            return ValidationError(
                .invalidValue,
                field: "destination",
                "destination \(destination) is a directory; give a path to a file inside it"
            )
        }
        // In a sticky directory (/tmp) only the file's owner, the directory's owner or root may
        // replace a file: the rename at the end would fail after the whole download.
        let sticky = directoryInfo.st_mode & S_ISVTX != 0
        if sticky, owner.rawValue != 0, fileInfo.st_uid != owner.rawValue, directoryInfo.st_uid != owner.rawValue {
            return ValidationError(
                .invalidValue,
                field: "destination",
                "destination \(destination) belongs to uid \(fileInfo.st_uid) in the sticky directory \(directory), so you may not replace it; choose another name"
            )
        }
        return nil
    }

    private static func pathError(
        _ field: String,
        _ path: String,
        _ code: Int32,
        doing action: String,
        directory: Bool = false
    ) -> ValidationError {
        let what = directory ? "directory \(path)" : "\(field) \(path)"
        let reason: String
        switch code {
        case ENOENT: reason = "\(what) does not exist" + (directory ? "; create it first" : "")
        case ENOTDIR: reason = "a part of \(path) is not a directory"
        case EACCES, EPERM: reason = "you may not \(action) \(what)"
        case EROFS:
            reason =
                "\(what) is on a read-only file system for lulld; under the system unit, an administrator makes it writable with a drop-in (systemctl edit lulld: [Service] ReadWritePaths=\(path)); see docs/security.md"
        default: reason = "cannot \(action) \(what): \(String(cString: strerror(code)))"
        }
        return ValidationError(.invalidValue, field: field, reason)
    }
}

/// A kind whose job reads or writes files of its owner's, checked at submission.
protocol OwnedPaths {
    /// The first problem with the job's files, seen with the owner's rights (the caller has
    /// taken them on); nil when there is none.
    func pathProblem(owner: OwnerID) -> ValidationError?
}
