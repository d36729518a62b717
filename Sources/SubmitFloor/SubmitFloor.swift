// The exchange both submit floors make: the same `POST /v1/jobs` as `lullctl submit fetch` over a
// blocking Unix-socket connection, and the same line printed, with no Foundation and no checks.

#if canImport(Glibc)
import Glibc
#endif

public func fail(_ message: String) -> Never {
    let name = CommandLine.arguments.first.map { $0.split(separator: "/").last.map(String.init) ?? $0 } ?? "floor"
    let line = Array("\(name): \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

func jsonString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case _ where scalar.value < 0x20:
            out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

/// The digits or word after `"key":` in a flat scan of the answer.
func field(_ key: String, in text: String) -> Substring? {
    let marker = "\"\(key)\":"
    var rest = text[...]
    while !rest.isEmpty, !rest.hasPrefix(marker) { rest = rest.dropFirst() }
    guard !rest.isEmpty else { return nil }
    rest = rest.dropFirst(marker.count).drop { $0 == "\"" || $0 == " " }
    return rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
}

/// Sends the fetch, waits for the daemon's answer and prints lullctl's receipt line; exits with 1
/// and a message on any failure.
public func submitFetch(url: String, destination: String, socket socketPath: String) {
    let body = "{\"kind\":\"fetch\",\"url\":\(jsonString(url)),\"destination\":\(jsonString(destination))}"
    let request =
        "POST /v1/jobs HTTP/1.1\r\nHost: lull\r\nConnection: close\r\ncontent-type: application/json\r\n"
        + "Content-Length: \(body.utf8.count)\r\n\r\n" + body

    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { fail("socket: \(String(cString: strerror(errno)))") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let path = Array(socketPath.utf8)
    guard path.count < MemoryLayout.size(ofValue: address.sun_path) else { fail("socket path too long") }
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    guard connected == 0 else { fail("connect \(socketPath): \(String(cString: strerror(errno)))") }
    var pending = Array(request.utf8)[...]
    while !pending.isEmpty {
        let sent = pending.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent > 0 else { fail("send: \(String(cString: strerror(errno)))") }
        pending = pending.dropFirst(sent)
    }
    // The daemon closes the connection after its answer (`Connection: close`).
    var answer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16_384)
    while true {
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { break }
        answer += chunk[..<count]
    }
    close(fd)
    let text = String(decoding: answer, as: UTF8.self)
    guard text.hasPrefix("HTTP/1.1 201"), let id = field("id", in: text), let state = field("state", in: text) else {
        fail("the daemon answered: \(text.prefix(200))")
    }
    print("job \(id) \(state); follow it with lullctl watch \(id)")
}
