/// An HTTP request as a plain value: everything a handler may read, nothing it must free.
public struct Request: Sendable {
    /// The method token as sent, e.g. `GET`.
    public var method: String
    /// The percent-decoded path, e.g. `/static/app.css`. `..` segments are NOT removed here;
    /// code that maps paths to files must reject them.
    public var path: String
    /// Decoded query items in order; a key without `=` has an empty value.
    public var query: [(name: String, value: String)]
    /// Request header fields.
    public var headers: HTTPHeaders
    /// The request body, already complete when a handler runs.
    public var body: [UInt8]
    /// The peer's address, e.g. `127.0.0.1`, or `nil` when unknown (tests without sockets).
    /// Formatted on first read: most handlers never look at it.
    public var remoteAddress: String? {
        get { peer.text }
        set { peer = newValue.map(PeerAddress.text) ?? .unknown }
    }
    var peer: PeerAddress = .unknown
    /// Path parameters captured by the router, e.g. `id` for `/items/:id`, `*` for a wildcard.
    public var parameters: [String: String]
    /// Who sent the request, when the router's ``AccessGate`` found out; nil without a gate or
    /// for an anonymous request.
    public var principal: Principal?

    /// Creates a request from already-decoded parts.
    public init(
        method: String, path: String, query: [(name: String, value: String)] = [], headers: HTTPHeaders = [:],
        body: [UInt8] = [], remoteAddress: String? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.parameters = [:]
        self.remoteAddress = remoteAddress
    }

    /// Creates a request from a raw request target such as `/a%20b?x=1&y`, decoding it once,
    /// exactly as the server does for requests that arrive over a socket.
    public init(
        method: String, target: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
        remoteAddress: String? = nil
    ) throws(HTTPError) {
        let rawPath: Substring
        let rawQuery: Substring?
        if let mark = target.firstIndex(of: "?") {
            rawPath = target[..<mark]
            rawQuery = target[target.index(after: mark)...]
        } else {
            rawPath = target[...]
            rawQuery = nil
        }
        let path = try Request.decodePath(rawPath)
        let query = try rawQuery.map { raw throws(HTTPError) in try Request.decodeQuery(raw) } ?? []
        self.init(
            method: method, path: path, query: query, headers: headers, body: body,
            remoteAddress: remoteAddress)
    }

    /// The first value of query item `name`, or nil.
    public func queryValue(_ name: String) -> String? {
        for item in query where item.name == name {
            return item.value
        }
        return nil
    }

    /// The body as UTF-8 text, or nil if it is not valid UTF-8.
    public var bodyText: String? {
        String(validating: body, as: UTF8.self)
    }

    static func decodePath(_ raw: Substring) throws(HTTPError) -> String {
        try decodePath(String(raw))
    }

    /// Decodes a raw path; a path without escapes comes back as the same string, uncopied.
    static func decodePath(_ raw: String) throws(HTTPError) -> String {
        guard raw.utf8.first == 47 || raw == "*" else {
            throw HTTPError.badRequest("The request path must start with '/'.", code: "bad_path")
        }
        do {
            return try PercentDecoding.decode(raw, plusIsSpace: false)
        } catch {
            throw HTTPError.badRequest(Request.explain(error, in: "the path"), code: "bad_path")
        }
    }

    /// Splits a raw query (`a=1&b&c=%20`) on `&` and decodes each name and value once; more than
    /// `limit` items is refused with `414` (the query is the request target's unbounded part).
    static func decodeQuery(_ raw: Substring, limit: Int = .max) throws(HTTPError) -> [(
        name: String, value: String
    )] {
        var query: [(name: String, value: String)] = []
        for pair in raw.split(separator: "&", omittingEmptySubsequences: true) {
            guard query.count < limit else {
                throw HTTPError(
                    414, code: "too_many_parameters",
                    message: "The query has more than \(limit) parameters.")
            }
            if let equals = pair.firstIndex(of: "=") {
                query.append(
                    try Request.decodeQueryItem(
                        name: pair[..<equals], value: pair[pair.index(after: equals)...]))
            } else {
                query.append(try Request.decodeQueryItem(name: pair, value: ""))
            }
        }
        return query
    }

    static func decodeQueryItem(name: Substring, value: Substring) throws(HTTPError) -> (
        name: String, value: String
    ) {
        do {
            let decodedName = try PercentDecoding.decode(name, plusIsSpace: true)
            do {
                return (decodedName, try PercentDecoding.decode(value, plusIsSpace: true))
            } catch {
                throw HTTPError.badRequest(
                    Request.explain(error, in: "query parameter '\(decodedName)'"), code: "bad_query")
            }
        } catch let error as HTTPError {
            throw error
        } catch {
            throw HTTPError.badRequest(
                Request.explain(error, in: "a query parameter name"), code: "bad_query")
        }
    }

    private static func explain(_ failure: any Error, in place: String) -> String {
        switch failure as? PercentDecoding.Failure {
        case .badEscape: "Malformed percent-escape in \(place)."
        case .invalidUTF8: "Percent-escapes in \(place) are not valid UTF-8."
        case .nulByte: "NUL byte in \(place)."
        case nil: "Malformed \(place)."
        }
    }
}
