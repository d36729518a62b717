import Foundation
import NIOSSL

#if canImport(Glibc)
import Glibc
#endif

/// What a failed verification needs to be put in words, read from a server's certificate:
/// the names it is for, who issued it, whether it issued itself, and when it is valid.
/// NIOSSL shows validity and alternative names but not the issuer, so the two names are read
/// from the DER (`tbsCertificate`: version, serial, algorithm, issuer, validity, subject).
struct CertificateFacts: Sendable {
    let subjectName: String?
    let issuerName: String?
    let selfIssued: Bool
    let notValidBefore: Date
    let notValidAfter: Date
    let dnsNames: [String]
    let ipAddresses: [[UInt8]]

    init(_ certificate: NIOSSLCertificate) {
        notValidBefore = Date(timeIntervalSince1970: TimeInterval(certificate.notValidBefore))
        notValidAfter = Date(timeIntervalSince1970: TimeInterval(certificate.notValidAfter))
        var dns: [String] = []
        var ips: [[UInt8]] = []
        for name in certificate._subjectAlternativeNames() {
            let bytes = name.contents.withUnsafeBufferPointer { Array($0) }
            if name.nameType == .dnsName { dns.append(String(decoding: bytes, as: UTF8.self)) }
            if name.nameType == .ipAddress { ips.append(bytes) }
        }
        dnsNames = dns
        ipAddresses = ips
        let names = (try? certificate.toDERBytes()).flatMap(Self.issuerAndSubject)
        issuerName = names.flatMap { Self.commonName(in: $0.issuer) }
        subjectName = names.flatMap { Self.commonName(in: $0.subject) }
        selfIssued = names.map { $0.issuer == $0.subject } ?? false
    }

    /// The names the certificate is for, as a person reads them.
    var names: [String] {
        let addresses = ipAddresses.compactMap(Self.text(ofAddress:))
        let all = dnsNames + addresses
        return all.isEmpty ? subjectName.map { [$0] } ?? [] : all
    }

    /// Whether the certificate is for `host` (an IP address or a DNS name; `*.` covers one label).
    func covers(_ host: String) -> Bool {
        // Without alternative names, only the common name says what the certificate is for.
        if let address = Self.address(of: host), !(dnsNames.isEmpty && ipAddresses.isEmpty) {
            return ipAddresses.contains(address)
        }
        let wanted = host.lowercased()
        let candidates = dnsNames.isEmpty ? subjectName.map { [$0] } ?? [] : dnsNames
        return candidates.contains { name in
            let name = name.lowercased()
            if name == wanted { return true }
            guard name.hasPrefix("*."), let dot = wanted.firstIndex(of: ".") else { return false }
            return wanted[dot...] == name.dropFirst()
        }
    }

    static func address(of host: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    private static func text(ofAddress bytes: [UInt8]) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : bytes.count == 16 ? AF_INET6 : -1
        guard family >= 0, inet_ntop(family, bytes, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: DER

    /// One DER element: its tag and the range of its contents in `bytes`.
    private struct Element {
        let tag: UInt8
        let contents: Range<Int>
        let end: Int
    }

    private static func element(in bytes: [UInt8], at start: Int) -> Element? {
        guard start + 1 < bytes.count else { return nil }
        let tag = bytes[start]
        var index = start + 1
        var length = Int(bytes[index])
        index += 1
        if length & 0x80 != 0 {
            let count = length & 0x7f
            guard count > 0, count <= 4, index + count <= bytes.count else { return nil }
            length = bytes[index..<index + count].reduce(0) { $0 << 8 | Int($1) }
            index += count
        }
        guard index + length <= bytes.count else { return nil }
        return Element(tag: tag, contents: index..<index + length, end: index + length)
    }

    /// The DER of the issuer and subject names.
    private static func issuerAndSubject(_ der: [UInt8]) -> (issuer: ArraySlice<UInt8>, subject: ArraySlice<UInt8>)? {
        guard let certificate = element(in: der, at: 0), let tbs = element(in: der, at: certificate.contents.lowerBound)
        else { return nil }
        var fields: [Element] = []
        var index = tbs.contents.lowerBound
        while index < tbs.contents.upperBound, fields.count < 6, let field = element(in: der, at: index) {
            fields.append(field)
            index = field.end
        }
        // Without the explicit [0] version, the fields start one earlier.
        let skip = fields.first?.tag == 0xa0 ? 1 : 0
        guard fields.count >= skip + 5 else { return nil }
        let issuer = fields[skip + 2]
        let subject = fields[skip + 4]
        return (der[issuer.contents], der[subject.contents])
    }

    /// The last commonName (2.5.4.3) in a Name's DER.
    private static func commonName(in name: ArraySlice<UInt8>) -> String? {
        let bytes = Array(name)
        var found: String?
        var index = 0
        while index < bytes.count, let set = element(in: bytes, at: index) {
            var inner = set.contents.lowerBound
            while inner < set.contents.upperBound, let pair = element(in: bytes, at: inner) {
                if let oid = element(in: bytes, at: pair.contents.lowerBound),
                    Array(bytes[oid.contents]) == [0x55, 0x04, 0x03],
                    let value = element(in: bytes, at: oid.end)
                {
                    found = String(decoding: bytes[value.contents], as: UTF8.self)
                }
                inner = pair.end
            }
            index = set.end
        }
        return found
    }
}
