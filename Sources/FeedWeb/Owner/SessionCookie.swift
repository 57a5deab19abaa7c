import HTTPServer

/// The session cookie: `pullrefresh_session` over HTTP, `__Host-pullrefresh_session` over
/// HTTPS (browsers accept a `__Host-` cookie only with `Secure`, `Path=/` and no `Domain`, so
/// a sibling subdomain cannot plant or overwrite it). Always `HttpOnly` (no script reads it)
/// and `SameSite=Lax` (not sent on another site's POSTs or subresource requests).
enum SessionCookie {
    static let plainName = "pullrefresh_session"
    static let secureName = "__Host-pullrefresh_session"
    /// How long the browser keeps it: the server's session expires (and slides) on its own;
    /// 400 days is the longest browsers honour.
    static let maxAge = 400 * 24 * 3600

    static func name(secure: Bool) -> String { secure ? secureName : plainName }

    /// The value the request's `Cookie` fields carry under the cookie's name (over HTTPS only
    /// the `__Host-` one: a plain one may have been planted), or nil.
    static func value(in request: Request, secure: Bool) -> String? {
        let wanted = name(secure: secure)
        for field in request.headers.values(for: "Cookie") {
            for pair in field.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " || $0 == "\t" }
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                if trimmed[..<equals] == wanted {
                    let value = trimmed[trimmed.index(after: equals)...]
                    return value.isEmpty ? nil : String(value)
                }
            }
        }
        return nil
    }

    /// `Set-Cookie` for a new session.
    static func set(_ value: String, secure: Bool) -> String {
        "\(name(secure: secure))=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Lax"
            + (secure ? "; Secure" : "")
    }

    /// `Set-Cookie` that makes the browser forget it.
    static func clear(secure: Bool) -> String {
        "\(name(secure: secure))=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }
}
