/// The host part of a transfer's URL, lowercased (per-host limits, proxy decisions).
enum TransferHost {
    static func of(_ url: String) -> String? {
        // On the UTF-8 view: this runs several times per submission, and a search through
        // Characters (`firstRange(of:)`) cost more than the rest of the submission's validation.
        let utf8 = url.utf8
        guard let separator = utf8.indices.first(where: { utf8[$0...].starts(with: "://".utf8) }) else { return nil }
        let authority = utf8[utf8.index(separator, offsetBy: 3)...].prefix {
            $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#")
        }
        let hostPort = authority.split(separator: UInt8(ascii: "@"), omittingEmptySubsequences: false).last ?? authority
        let host: Substring.UTF8View.SubSequence
        if hostPort.first == UInt8(ascii: "[") {
            host = hostPort.dropFirst().prefix { $0 != UInt8(ascii: "]") }
        } else {
            host = hostPort.prefix { $0 != UInt8(ascii: ":") }
        }
        return String(decoding: host, as: UTF8.self).lowercased()
    }
}
