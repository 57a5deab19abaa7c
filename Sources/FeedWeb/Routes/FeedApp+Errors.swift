import Feed
import HTTPServer

/// How errors are answered: the JSON envelope under `/api/` and on `/healthz`, a localized HTML
/// page elsewhere.
extension FeedApp {
    /// Whether errors for `path` are the JSON envelope: the API (`/api` itself included, so
    /// it is the API's 404 rather than the page's) and `/healthz`; elsewhere an HTML page.
    public static func answersJSON(path: String) -> Bool {
        path == "/api" || path.hasPrefix("/api/") || path == "/healthz"
    }

    func renderError(_ error: any HTTPResponseError, for request: Request) -> Response {
        if Self.answersJSON(path: request.path) { return jsonError(error) }
        var headers = error.headers
        let language = renderer.localizer.negotiate(acceptLanguage: request.headers["Accept-Language"])
        for field in SecurityHeaders.html { headers.set(field.name, field.value) }
        headers.set("Content-Type", "text/html; charset=utf-8")
        headers.set("Cache-Control", "no-store")
        return Response(
            status: error.status, headers: headers,
            body: renderer.errorPage(status: error.status, message: error.message, language: language))
    }

    /// The API's error envelope, `{"error":{"code":…,"message":…}}`: also the answer to requests
    /// still pending at shutdown (the pages and the API alike: nearly all are `POST /api/refresh`).
    /// `extra` writes more members of the error object (`,"candidates":[…]`).
    func jsonError(_ error: any HTTPResponseError, extra: ((inout JSONWriter) -> Void)? = nil) -> Response {
        var headers = error.headers
        var writer = JSONWriter(capacity: 128)
        writer.raw("{\"error\":{\"code\":")
        writer.string(error.code)
        writer.raw(",\"message\":")
        writer.string(error.message)
        extra?(&writer)
        writer.raw("}}")
        headers.set("Content-Type", "application/json; charset=utf-8")
        headers.set("Cache-Control", "no-store")
        return Response(status: error.status, headers: headers, body: writer.bytes)
    }
}
