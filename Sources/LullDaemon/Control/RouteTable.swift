import NIOHTTP1

/// One route of the control API as data: a method, a path pattern such as
/// `/v1/jobs/{id}/pause`, and the handler that answers it.
struct ControlRoute: Sendable {
    typealias Handler = @Sendable (ControlRouter, ControlRequest, RouteParameters) async throws -> ControlResponse

    let method: HTTPMethod
    let pattern: RoutePattern
    let handler: Handler

    init(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping Handler) {
        self.method = method
        self.pattern = RoutePattern(pattern)
        self.handler = handler
    }
}

/// A path pattern: literal segments and `{name}` segments that match any one segment.
/// Empty segments are ignored, on both sides, so `/v1//jobs` is `/v1/jobs`.
struct RoutePattern: Sendable, CustomStringConvertible {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    let segments: [Segment]

    init(_ text: String) {
        segments = text.split(separator: "/", omittingEmptySubsequences: true).map { segment in
            segment.hasPrefix("{") && segment.hasSuffix("}")
                ? .parameter(String(segment.dropFirst().dropLast())) : .literal(String(segment))
        }
    }

    /// The parameters of a path this pattern matches, or nil.
    func match(_ path: [String]) -> RouteParameters? {
        guard path.count == segments.count else { return nil }
        var values: [String: String] = [:]
        for (segment, given) in zip(segments, path) {
            switch segment {
            case .literal(let literal):
                guard literal == given else { return nil }
            case .parameter(let name):
                values[name] = given
            }
        }
        return RouteParameters(values: values)
    }

    var description: String {
        "/"
            + segments.map {
                switch $0 {
                case .literal(let literal): literal
                case .parameter(let name): "{\(name)}"
                }
            }.joined(separator: "/")
    }
}

/// The `{name}` segments of the path a route matched.
struct RouteParameters: Sendable {
    let values: [String: String]

    /// A name the route's pattern holds; any other is a mistake in the route table.
    subscript(_ name: String) -> String {
        guard let value = values[name] else { preconditionFailure("route has no parameter {\(name)}") }
        return value
    }
}

/// The routes of the API, which serve both dispatch and the `Allow` header of a 405: a path
/// that some route matches under another method lists those methods, in table order.
struct RouteTable: Sendable {
    enum Match {
        case found(ControlRoute, RouteParameters)
        /// The path exists, not under this method: the methods it takes.
        case methodNotAllowed([HTTPMethod])
        case notFound
    }

    let routes: [ControlRoute]

    init(_ routes: [ControlRoute]) { self.routes = routes }

    func match(_ method: HTTPMethod, _ path: [String]) -> Match {
        var allowed: [HTTPMethod] = []
        for route in routes {
            guard let parameters = route.pattern.match(path) else { continue }
            if route.method == method { return .found(route, parameters) }
            allowed.append(route.method)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed)
    }
}
