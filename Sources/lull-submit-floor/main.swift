// The least a Swift client can do to submit a fetch: `lull-submit-floor URL DEST SOCKET` sends
// the same `POST /v1/jobs` as `lullctl submit fetch URL -o DEST --socket SOCKET` and prints the
// same line, with no argument parser, no Foundation and no validation. lull-bench times it beside
// lullctl and tsp, as the ceiling server stands beside lulld: the start of a Swift program plus one
// durable submission, a floor no Swift `lullctl` can go below on the same machine.

#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
    let line = Array("lull-submit-floor: \(message)\n".utf8)
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

let arguments = CommandLine.arguments
guard arguments.count == 4 else { fail("usage: lull-submit-floor URL DEST SOCKET") }
let body = "{\"kind\":\"fetch\",\"url\":\(jsonString(arguments[1])),\"destination\":\(jsonString(arguments[2]))}"
let request =
    "POST /v1/jobs HTTP/1.1\r\nHost: lull\r\nConnection: close\r\ncontent-type: application/json\r\n"
    + "Content-Length: \(body.utf8.count)\r\n\r\n" + body

let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
guard fd >= 0 else { fail("socket: \(String(cString: strerror(errno)))") }
var address = sockaddr_un()
address.sun_family = sa_family_t(AF_UNIX)
let path = Array(arguments[3].utf8)
guard path.count < MemoryLayout.size(ofValue: address.sun_path) else { fail("socket path too long") }
withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
let connected = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
}
guard connected == 0 else { fail("connect \(arguments[3]): \(String(cString: strerror(errno)))") }
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
