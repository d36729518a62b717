import NIOHTTP1

/// How many requests on a control connection were read in full and not answered yet. Without
/// NIO's pipelining assistance the decoder hands on every request already in the buffer, so a
/// handler cannot tell "the daemon is answering" from "the client is quiet" by the last part
/// it saw; the read deadline and the protocol-error answer both ask this count instead.
struct OwedAnswers {
    private(set) var count = 0

    var none: Bool { count == 0 }

    mutating func read(_ part: HTTPServerRequestPart) {
        if case .end = part { count += 1 }
    }

    mutating func wrote(_ part: HTTPServerResponsePart) {
        // An answer can go out before its request is read in full (a body too large).
        if case .end = part { count = max(0, count - 1) }
    }
}
