/// An error that knows which HTTP response it should become.
///
/// Anything thrown by a handler that does not conform is treated as a bug: it is logged and
/// answered with a bare `500` whose body reveals nothing.
public protocol HTTPResponseError: Error {
    /// The status code the client should see.
    var status: Int { get }
    /// A short, client-safe explanation.
    var message: String { get }
    /// A machine-readable code, e.g. `bad_request`, used by JSON error envelopes.
    var code: String { get }
    /// Extra headers to send, e.g. `Allow` or `Retry-After`.
    var headers: HTTPHeaders { get }
}

/// A ready-made ``HTTPResponseError``.
public struct HTTPError: HTTPResponseError, Equatable, CustomStringConvertible {
    /// The status code the client should see.
    public var status: Int
    /// A short, client-safe explanation.
    public var message: String
    /// A machine-readable code for JSON error envelopes.
    public var code: String
    /// Extra headers to send with the error.
    public var headers: HTTPHeaders

    /// Creates an error; `code` defaults to a snake-case form of the status's reason phrase.
    public init(_ status: Int, code: String? = nil, message: String? = nil, headers: HTTPHeaders = [:]) {
        self.status = status
        self.message = message ?? HTTPStatus.reasonPhrase(status)
        self.code = code ?? HTTPStatus.code(status)
        self.headers = headers
    }

    /// `status code: message`, for logs.
    public var description: String { "\(status) \(code): \(message)" }

    /// `400 Bad Request` with a message that names what was wrong.
    public static func badRequest(_ message: String, code: String = "bad_request") -> HTTPError {
        HTTPError(400, code: code, message: message)
    }

    /// `404 Not Found`.
    public static func notFound(_ message: String = "No such resource.") -> HTTPError {
        HTTPError(404, code: "not_found", message: message)
    }

    /// `405 Method Not Allowed` with the `Allow` header listing what is allowed.
    public static func methodNotAllowed(allowed: [String]) -> HTTPError {
        HTTPError(
            405, code: "method_not_allowed",
            message: "Allowed methods: \(allowed.joined(separator: ", ")).",
            headers: ["Allow": allowed.joined(separator: ", ")])
    }

    /// `413 Content Too Large`.
    public static func payloadTooLarge(limit: Int) -> HTTPError {
        HTTPError(413, code: "payload_too_large", message: "Request body exceeds \(limit) bytes.")
    }

    /// `503 Service Unavailable` with `Retry-After`.
    public static func unavailable(
        retryAfter seconds: Int, message: String = "Server busy, try again shortly."
    )
        -> HTTPError
    {
        HTTPError(503, code: "unavailable", message: message, headers: ["Retry-After": String(seconds)])
    }
}
