import HTTPServer

/// Headers sent with every HTML response. The policy allows no inline script or style: every
/// script and stylesheet is a file under `/static/`.
enum SecurityHeaders {
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; "
        + "frame-ancestors 'none'; object-src 'none'"

    static let html: HTTPHeaders = [
        "Content-Security-Policy": contentSecurityPolicy,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "X-Frame-Options": "DENY",
    ]
}
