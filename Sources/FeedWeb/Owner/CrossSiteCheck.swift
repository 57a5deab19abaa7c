import HTTPServer

/// What the browser says about where a state-changing request came from.
///
/// `Sec-Fetch-Site` (current Chromium, Firefox and Safari) other than `same-origin` or `none`
/// is another site (`same-site` too: a sibling subdomain is not this origin). An `Origin`
/// other than this page's own is another site. `Origin: null` is not taken as one: the pages
/// send `Referrer-Policy: no-referrer`, under which a browser names the origin of a form's POST
/// `null`, same-origin ones included (Fetch, "serializing a request origin"; Chromium sends
/// `Origin: null` with `Sec-Fetch-Site: same-origin`); such a request is judged by
/// `Sec-Fetch-Site` and, for the owner's changes, by its CSRF token.
enum CrossSiteCheck {
    /// Whether `request` says it came from another site.
    static func isCrossSite(_ request: Request, transport: ClientTransport) -> Bool {
        if let site = request.headers["Sec-Fetch-Site"]?.lowercased(), site != "same-origin", site != "none" {
            return true
        }
        if let origin = request.headers["Origin"], origin != "null" {
            return origin.lowercased() != transport.origin(request)
        }
        return false
    }
}
