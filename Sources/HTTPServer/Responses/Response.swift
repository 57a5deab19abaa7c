/// An HTTP response as a plain value. libmicrohttpd adds `Content-Length` and `Date`.
public struct Response: Sendable {
    /// The status code.
    public var status: Int {
        didSet { dropPreparation() }
    }
    /// Header fields to send.
    public var headers: HTTPHeaders {
        didSet { dropPreparation() }
    }
    /// The body bytes; shared copy-on-write, so cached bodies cost nothing to hand out.
    public var body: [UInt8] {
        didSet { dropPreparation() }
    }
    /// The libmicrohttpd object for this exact response, when built by ``prepared()``; any
    /// change to the response drops it.
    private(set) var preparedHandle: PreparedResponse?
    /// Set by ``reusable(while:isAt:)``: the server may store this response and send it again.
    private(set) var reuse: ReuseCondition?
    /// Which of the router's routes answered (an index into ``Router/routePatterns``), or -1
    /// for requests no route handled (unknown paths, bad targets); set by the router.
    var routeIndex = -1
    /// The body produced over time, for streaming responses; `body` is then empty.
    public private(set) var stream: ResponseStream?

    /// Creates a response.
    public init(status: Int = 200, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response with a UTF-8 text body and the given content type.
    public init(status: Int = 200, contentType: String, text: String, headers: HTTPHeaders = [:]) {
        var all = headers
        all.set("Content-Type", contentType)
        self.init(status: status, headers: all, body: Array(text.utf8))
    }

    /// This response with its libmicrohttpd object built now, for responses served many times
    /// (cached pages and API bodies): the server then queues the same object for every request
    /// instead of copying the body and headers each time. Invalid header values leave it unprepared.
    public func prepared() -> Response {
        var copy = self
        copy.preparedHandle = PreparedResponse(self)
        return copy
    }

    /// The prepared `304 Not Modified` for this prepared response, with `headers` and no body.
    /// It carries the `Content-Length` this response has (RFC 9110 §8.6 allows no other value),
    /// where a plain empty `304` would get libmicrohttpd's `Content-Length: 0`. The two share
    /// one copy of the body bytes. Unprepared, it is that plain `304`.
    public func notModified(headers: HTTPHeaders) -> Response {
        var response = Response(status: 304, headers: headers)
        guard let preparedHandle else { return response.prepared() }
        response.preparedHandle = PreparedResponse(headers: headers, lengthOf: preparedHandle)
        return response
    }

    /// Whether ``prepared()`` built the libmicrohttpd object.
    public var isPrepared: Bool { preparedHandle != nil }

    /// This prepared response, marked as one the server may store and send again, without
    /// routing, to later `GET` and `HEAD` requests for the same target (path and query, byte
    /// for byte) whose headers named in this response's `Vary` field, `If-None-Match` and
    /// `If-Modified-Since` have the same values, for as long as `content` stays at `version`
    /// (see ``StoredResponses``).
    ///
    /// Mark a response only when that is all it depends on: the handler will not see those
    /// requests. Any change to the response (status, headers, body) drops the mark, as it
    /// drops the preparation; an unprepared response is never stored.
    public func reusable(while content: any VersionedContent, isAt version: Int) -> Response {
        var copy = self
        if copy.preparedHandle != nil { copy.reuse = ReuseCondition(content: content, version: version) }
        return copy
    }

    /// Whether ``reusable(while:isAt:)`` marked the response.
    public var isReusable: Bool { reuse != nil }

    private mutating func dropPreparation() {
        preparedHandle = nil
        reuse = nil
    }

    /// A response whose body is written over time through `stream` (an event stream). It is
    /// never prepared nor compressed; the server counts it against ``ServerOptions/maxStreams``
    /// and ends it when shutting down.
    public static func streaming(_ stream: ResponseStream, status: Int = 200, headers: HTTPHeaders)
        -> Response
    {
        var response = Response(status: status, headers: headers)
        response.stream = stream
        return response
    }

    /// A `text/plain` response.
    public static func text(_ text: String, status: Int = 200) -> Response {
        Response(status: status, contentType: "text/plain; charset=utf-8", text: text)
    }

    /// A redirect with `Location`; `303 See Other` by default, the answer to a form POST.
    public static func redirect(to location: String, status: Int = 303) -> Response {
        Response(status: status, headers: ["Location": location])
    }
}
