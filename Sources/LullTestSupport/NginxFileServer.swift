import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// nginx from Debian on a loopback port, serving the files under `www` (with its own `ETag`,
/// `Last-Modified`, ranges and `304`s) and accepting PUT uploads under `/upload/` (WebDAV):
/// a file server Lull did not write, for the benchmarks and for interop tests. One process
/// (`master_process off`), so the SIGKILL that stops it leaves no worker behind.
public final class NginxFileServer: @unchecked Sendable {
    public let port: Int
    private let root: URL
    private var process: Process?

    /// `root` holds the config, logs and temporary files; `www` the files served.
    public init(root: URL, www: URL) throws {
        self.root = root
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("tmp"),
            withIntermediateDirectories: true
        )
        port = try Socket.freeLoopbackPort()
        // As root, nginx would hand its workers to nobody, who may not write the upload directory.
        let user = getuid() == 0 ? "user root;" : ""
        let config = """
            \(user)
            daemon off;
            master_process off;
            worker_processes 1;
            error_log \(root.path)/nginx-error.log;
            pid \(root.path)/nginx.pid;
            events { worker_connections 64; }
            http {
                access_log off;
                sendfile on;
                client_max_body_size 0;
                client_body_temp_path \(root.path)/tmp;
                proxy_temp_path \(root.path)/tmp;
                fastcgi_temp_path \(root.path)/tmp;
                uwsgi_temp_path \(root.path)/tmp;
                scgi_temp_path \(root.path)/tmp;
                server {
                    listen 127.0.0.1:\(port);
                    root \(www.path);
                    location /upload/ { dav_methods PUT; create_full_put_path on; }
                }
            }
            """
        try config.write(to: root.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
    }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    public func start(timeout: Duration = .seconds(5)) throws {
        process = try ServerLaunch.start(
            "nginx",
            executable: BodyLimitProxy.nginx,
            arguments: ["-c", root.appendingPathComponent("nginx.conf").path, "-p", root.path],
            port: port,
            timeout: timeout
        )
    }

    public func stop() { ServerLaunch.kill(process) }
}
