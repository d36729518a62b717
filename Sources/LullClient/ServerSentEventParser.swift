/// Splits a `text/event-stream` body into messages. Bytes arrive in arbitrary chunks; a message
/// is complete at a blank line. Comment lines (starting with ':') are skipped.
public struct ServerSentEventParser: Sendable {
    public struct Message: Sendable, Equatable {
        public var id: String?
        public var event: String?
        public var data: String

        public init(id: String?, event: String?, data: String) {
            self.id = id
            self.event = event
            self.data = data
        }
    }

    private var pending: [UInt8] = []
    private var current = Message(id: nil, event: nil, data: "")
    private var hasData = false

    public init() {}

    public mutating func feed<Bytes: Sequence>(_ bytes: Bytes) -> [Message] where Bytes.Element == UInt8 {
        var messages: [Message] = []
        for byte in bytes {
            guard byte == UInt8(ascii: "\n") else {
                pending.append(byte)
                continue
            }
            var line = pending
            pending.removeAll(keepingCapacity: true)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            if line.isEmpty {
                if hasData { messages.append(current) }
                current = Message(id: nil, event: nil, data: "")
                hasData = false
                continue
            }
            if line.first == UInt8(ascii: ":") { continue }
            let text = String(decoding: line, as: UTF8.self)
            let (field, value) = Self.split(text)
            switch field {
            case "id": current.id = value
            case "event": current.event = value
            case "data":
                current.data += hasData ? "\n" + value : value
                hasData = true
            default: break
            }
        }
        return messages
    }

    private static func split(_ line: String) -> (String, String) {
        guard let colon = line.firstIndex(of: ":") else { return (line, "") }
        var value = line[line.index(after: colon)...]
        if value.first == " " { value = value.dropFirst() }
        return (String(line[..<colon]), String(value))
    }
}
