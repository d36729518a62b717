import ArgumentParser
import Foundation

/// A push payload read from a file (`--data-file F`, `-d @F`) or standard input (`@-`), and the
/// content type its name suggests: a server that dispatches on `Content-Type` would otherwise
/// get none.
enum PayloadFile {
    static func read(_ path: String) throws -> Data {
        if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        // Opened here rather than by FileManager, which leaves errno unset: the reason is the
        // system's ("Is a directory", "Permission denied").
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        var info = stat()
        if descriptor >= 0, fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            close(descriptor)
            errno = EISDIR
        } else if descriptor >= 0 {
            let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            do {
                return try file.readToEnd() ?? Data()
            } catch {}
        }
        throw ValidationError(
            "cannot read the payload file \(path): \(String(cString: strerror(errno))); check the path and that you may read it"
        )
    }

    /// By extension; nil (the server's default) when the name says nothing.
    static func contentType(of path: String) -> String? {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        return types[path[path.index(after: dot)...].lowercased()]
    }

    private static let types: [String: String] = [
        "json": "application/json", "txt": "text/plain; charset=utf-8", "xml": "application/xml",
        "csv": "text/csv", "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
        "yaml": "application/yaml", "yml": "application/yaml", "ndjson": "application/x-ndjson",
        "form": "application/x-www-form-urlencoded", "bin": "application/octet-stream",
        "gz": "application/gzip", "zip": "application/zip", "pdf": "application/pdf",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "protobuf": "application/x-protobuf",
    ]
}
