import Foundation
public import Logging

/// Routes requests by method and path to handlers, and turns errors into responses.
///
/// Unknown paths become `404`; a known path with the wrong method becomes `405` with `Allow`.
/// `HEAD` is served by the `GET` route (libmicrohttpd drops the body). Errors conforming to
/// ``HTTPResponseError`` become their status; anything else is logged and becomes a bare `500`.
public struct Router: Sendable {
    struct Route: Sendable {
        let pattern: PathPattern
        /// A handful of methods per path: a scan beats hashing the method on every request.
        var handlers: [(method: String, access: Access, handler: Handler)]

        func handler(for method: String) -> (access: Access, handler: Handler)? {
            for entry in handlers where entry.method == method {
                return (entry.access, entry.handler)
            }
            return nil
        }

        mutating func set(_ method: String, _ access: Access, _ handler: Handler) {
            handlers.removeAll { $0.method == method }
            handlers.append((method, access, handler))
        }
    }

    /// What the server should do with a request.
    public enum Outcome: Sendable {
        /// The response is ready now.
        case response(Response)
        /// The response needs awaiting; run the closure off the server thread.
        case deferred(@Sendable () async -> Response)
    }

    /// Turns an error into a response; lets the app render JSON envelopes or HTML pages.
    public typealias ErrorRenderer = @Sendable (any HTTPResponseError, Request) -> Response

    /// Turns the error that answers requests still pending when the server shuts down into a
    /// response: the server cannot tell which route each would have reached, so the app says
    /// what one answer fits them all.
    public typealias ShutdownRenderer = @Sendable (any HTTPResponseError) -> Response

    private var routes: [Route] = []
    /// Asked before every handler (see ``Access``); nil: every route is open.
    public var gate: (any AccessGate)?
    private var errorRenderer: ErrorRenderer
    private let shutdownRenderer: ShutdownRenderer
    private let logger: Logger

    /// Creates an empty router. Without an error renderer, errors are answered as plain text;
    /// without a shutdown renderer, so is the `503` of requests pending at shutdown.
    public init(
        logger: Logger = Logger(), errorRenderer: ErrorRenderer? = nil,
        shutdownRenderer: ShutdownRenderer? = nil
    ) {
        self.logger = logger
        self.errorRenderer = errorRenderer ?? { error, _ in Router.plainText(error) }
        self.shutdownRenderer = shutdownRenderer ?? Router.plainText
    }

    /// Registers a handler for `method` on `path` (see ``PathPattern`` for the syntax), open to
    /// `access` (the owner unless said otherwise: a route forgets nothing by being declared).
    public mutating func on(_ method: String, _ path: String, access: Access = .owner, _ handler: Handler) {
        let pattern = PathPattern(path)
        if let index = routes.firstIndex(where: { $0.pattern == pattern }) {
            routes[index].set(method, access, handler)
        } else {
            routes.append(Route(pattern: pattern, handlers: [(method, access, handler)]))
        }
    }

    /// Registers a synchronous `GET` handler.
    public mutating func get(
        _ path: String, access: Access = .owner, _ handler: @escaping @Sendable (Request) throws -> Response
    ) {
        on("GET", path, access: access, .immediate(handler))
    }

    /// Registers an asynchronous `POST` handler.
    public mutating func post(
        _ path: String, access: Access = .owner,
        _ handler: @escaping @Sendable (Request) async throws -> Response
    ) {
        on("POST", path, access: access, .async(handler))
    }

    /// The access each registered method of each path was declared with, in registration order:
    /// what a test walks to prove that no route is open by accident.
    public var routeAccess: [(method: String, path: String, access: Access)] {
        routes.flatMap { route in route.handlers.map { ($0.method, route.pattern.description, $0.access) } }
    }

    /// Routes a request: a ready response for immediate handlers and errors, or work to await.
    /// Takes the request by value and hands that same value on, so it is never copied.
    public func route(_ request: consuming Request) -> Outcome {
        var allowed: Set<String> = []
        var found: (handler: Handler, access: Access, parameters: [String: String], index: Int)?
        for (index, route) in routes.enumerated() {
            let parameters: [String: String]
            if route.pattern.isLiteral {
                // Comparing the path with each literal route is cheaper than hashing it: the
                // lengths differ for most (checked first: `==` does not), and an app has a handful.
                let literal = route.pattern.description
                guard literal.utf8.count == request.path.utf8.count, literal == request.path else { continue }
                parameters = [:]
            } else {
                guard let captured = route.pattern.match(request.path) else { continue }
                parameters = captured
            }
            let method =
                request.method == "HEAD" && route.handler(for: "HEAD") == nil ? "GET" : request.method
            guard let entry = route.handler(for: method) else {
                allowed.formUnion(route.handlers.map(\.method))
                continue
            }
            found = (entry.handler, entry.access, parameters, index)
            break
        }
        guard let found else {
            if allowed.isEmpty {
                return .response(errorRenderer(HTTPError.notFound(), request))
            }
            if allowed.contains("GET") { allowed.insert("HEAD") }
            return .response(errorRenderer(HTTPError.methodNotAllowed(allowed: allowed.sorted()), request))
        }
        var routed = consume request
        if !found.parameters.isEmpty { routed.parameters = found.parameters }
        let index = found.index
        if let gate, var refusal = gate.admit(&routed, to: found.access) {
            refusal.routeIndex = index
            return .response(refusal)
        }
        switch found.handler {
        case .immediate(let body):
            var response: Response
            do {
                response = try body(routed)
            } catch {
                response = self.response(for: error, request: routed)
            }
            response.routeIndex = index
            return .response(response)
        case .async(let body):
            return .deferred { [self, routed] in
                var response: Response
                do {
                    response = try await body(routed)
                } catch {
                    response = self.response(for: error, request: routed)
                }
                response.routeIndex = index
                return response
            }
        }
    }

    /// The access of the `GET` handler of the route at `index` (a ``Response/routeIndex``), when
    /// a gate guards it: what a stored answer of that route must ask the gate again before it is
    /// sent. Nil without a gate or for `.anyone` routes (stored answers go to anyone).
    func guardedAccess(ofRouteAt index: Int) -> Access? {
        guard gate != nil, routes.indices.contains(index),
            let access = routes[index].handler(for: "GET")?.access, access != .anyone
        else { return nil }
        return access
    }

    /// The registered path patterns in registration order, e.g. `/api/items`, `/static/*`:
    /// bounded labels for per-route metrics (``Response`` records which one answered).
    public var routePatterns: [String] { routes.map(\.pattern.description) }

    /// The socket-free core: routes and awaits, always producing a response.
    public func respond(to request: Request) async -> Response {
        switch route(request) {
        case .response(let response): response
        case .deferred(let work): await work()
        }
    }

    /// The response for an error thrown while handling `request`; also used by the server for
    /// errors found before routing (bad target, body too large, too many pending requests).
    public func response(for error: any Error, request: Request) -> Response {
        if let error = error as? any HTTPResponseError {
            return errorRenderer(error, request)
        }
        logger.error("unhandled error for \(request.method) \(request.path): \(String(reflecting: error))")
        return Response(status: 500, headers: ["Content-Type": "text/plain; charset=utf-8"])
    }

    /// The answer to requests still pending when the server shuts down (see ``ShutdownRenderer``).
    public func shutdownResponse(for error: any HTTPResponseError) -> Response {
        shutdownRenderer(error)
    }

    private static func plainText(_ error: any HTTPResponseError) -> Response {
        var response = Response.text(error.message + "\n", status: error.status)
        for field in error.headers {
            response.headers.set(field.name, field.value)
        }
        return response
    }
}
