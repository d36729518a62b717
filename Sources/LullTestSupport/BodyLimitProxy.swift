import Foundation

/// nginx (from Debian) as a reverse proxy on a loopback port that refuses request bodies over
/// `client_max_body_size` with `413`, as proxies in front of upload servers commonly do, and
/// answers the paths it is given with its own redirects. It runs
/// in the foreground as one process (`daemon off`, `master_process off`) under a prefix of its
/// own, and logs each request's method and status for the test to read.
public final class BodyLimitProxy: @unchecked Sendable {
    public static let nginx = "/usr/sbin/nginx"
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: nginx) }

    public let port: Int
    /// With `otherOrigin`: a second port nginx also serves, named as `localhost`.
    public let otherPort: Int?
    private let directory: String
    private var process: Process?

    /// `maxBody`: nginx's size syntax, such as "1m". `redirects`: paths nginx answers itself
    /// with `return STATUS URL` (path → (status, URL)), as a site moved behind it would.
    /// `otherOrigin`: nginx also listens on `otherPort` and rewrites the upstream's `Location`s
    /// from `port` to `http://localhost:otherPort/`, another origin serving the same upstream.
    /// `hidesPatchOffset`: the answers to `PATCH` lose their `Upload-Offset` (a proxy that
    /// passes on only the headers it knows).
    public init(
        directory: String,
        forwardingTo upstream: Int,
        maxBody: String,
        redirects: [String: (status: Int, to: String)] = [:],
        otherOrigin: Bool = false,
        hidesPatchOffset: Bool = false
    ) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory + "/tmp", withIntermediateDirectories: true)
        port = try Socket.freeLoopbackPort()
        otherPort = otherOrigin ? try Socket.freeLoopbackPort() : nil
        let otherListen =
            otherPort.map {
                """
                        listen 127.0.0.1:\($0);
                        proxy_redirect http://127.0.0.1:\(port)/ http://localhost:\($0)/;
                """
            } ?? ""
        let config = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log;
            events { worker_connections 64; }
            http {
                log_format statuses '$request_method $status';
                access_log \(directory)/access.log statuses;
                log_format credentials '$server_port $request_method authorization=$http_authorization cookie=$http_cookie';
                access_log \(directory)/credentials.log credentials;
                client_body_temp_path \(directory)/tmp;
                proxy_temp_path \(directory)/tmp;
                fastcgi_temp_path \(directory)/tmp;
                uwsgi_temp_path \(directory)/tmp;
                scgi_temp_path \(directory)/tmp;
                server {
                    listen 127.0.0.1:\(port);
            \(otherListen)
                    client_max_body_size \(maxBody);
            \(redirects.sorted { $0.key < $1.key }.map { "        location = \($0.key) { return \($0.value.status) \($0.value.to); }" }.joined(separator: "\n"))
                    location / {
            \(hidesPatchOffset ? "            if ($request_method = PATCH) { rewrite ^(.*)$ /lull-patch$1 last; }" : "")
                        proxy_pass http://127.0.0.1:\(upstream);
                        proxy_http_version 1.1;
                        proxy_request_buffering off;
                        proxy_buffering off;
                        proxy_set_header Host $http_host;
                    }
                    location /lull-patch/ {
                        internal;
                        rewrite ^/lull-patch(.*)$ $1 break;
                        proxy_pass http://127.0.0.1:\(upstream);
                        proxy_http_version 1.1;
                        proxy_request_buffering off;
                        proxy_buffering off;
                        proxy_set_header Host $http_host;
                        proxy_hide_header Upload-Offset;
                    }
                }
            }
            """
        try config.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
    }

    public func start(timeout: Duration = .seconds(20)) throws {
        process = try ServerLaunch.start(
            "nginx",
            executable: Self.nginx,
            arguments: ["-p", directory, "-c", directory + "/nginx.conf", "-e", directory + "/error.log"],
            port: port,
            timeout: timeout
        )
    }

    public func stop() { ServerLaunch.kill(process) }

    /// "PORT METHOD authorization=VALUE cookie=VALUE" for each request answered so far ("-" for
    /// a header not sent).
    public func credentialsSeen() -> [String] {
        ((try? String(contentsOfFile: directory + "/credentials.log", encoding: .utf8)) ?? "").split(separator: "\n")
            .map(String.init)
    }

    /// "METHOD STATUS" for each request answered so far.
    public func answered() -> [String] {
        ((try? String(contentsOfFile: directory + "/access.log", encoding: .utf8)) ?? "").split(separator: "\n").map(
            String.init
        )
    }
}
