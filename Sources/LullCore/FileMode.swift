/// The permission bits a fetched file gets: read, write and execute for owner, group and others
/// (0o000–0o777; no set-id or sticky bits, which a download has no business setting). Given
/// explicitly rather than left to the daemon's umask: a system daemon runs with `UMask=0077`,
/// and a file a web server should serve must not come out 0600 because of it.
public struct FileMode: Sendable, Equatable, Hashable, Codable {
    public let rawValue: UInt32

    /// What a fetch without `mode` gets: readable by everyone, writable by its owner, as a
    /// download with the usual umask 022 would be.
    public static let fetchDefault = FileMode(0o644)!

    public init?(_ rawValue: UInt32) {
        guard rawValue <= 0o777 else { return nil }
        self.rawValue = rawValue
    }

    /// Three or four octal digits, as `chmod` takes them: "644", "0640".
    public init?(octal text: String) {
        guard (3...4).contains(text.utf8.count),
            text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "7")).contains($0) }),
            let value = UInt32(text, radix: 8)
        else { return nil }
        self.init(value)
    }

    /// The mode a file created under `umask` gets from a program asking for 0666, as `curl -o` does.
    public init(creatingUnder umask: UInt32) {
        rawValue = 0o666 & ~umask & 0o777
    }

    /// Four octal digits, as `stat -c %a` would show with a leading zero: "0644".
    public var octal: String {
        let digits = String(rawValue, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    public init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer().decode(UInt32.self)
        guard let mode = FileMode(value) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "file mode \(value) is above 0o777")
            )
        }
        self = mode
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
