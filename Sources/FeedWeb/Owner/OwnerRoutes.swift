import Foundation
public import HTTPServer
public import Logging
public import Owner

/// The owner's side of the web: `/signin`, `/signout`, `/signout/everywhere`, and the
/// ``OwnerGate`` every other route passes (installed by ``register(on:)``).
///
/// Without a database there is no authority: the sign-in page says how to keep an owner, no
/// gate is installed, and every route stays open as before owners existed.
public final class OwnerRoutes: Sendable {
    let app: FeedApp
    let authority: OwnerAuthority?
    let transport: ClientTransport
    let logger: Logger
    /// The gate, nil without an authority.
    public let gate: OwnerGate?

    /// Creates the routes over `authority` (nil: no database); `publicRiver` opens the river's
    /// reading routes to everyone (`--public-river`).
    public init(
        app: FeedApp, authority: OwnerAuthority?, publicRiver: Bool, transport: ClientTransport,
        logger: Logger
    ) {
        self.app = app
        self.authority = authority
        self.transport = transport
        self.logger = logger
        gate = authority.map { authority in
            OwnerGate(
                authority: authority, publicRiver: publicRiver, transport: transport, logger: logger,
                render: { error, request in app.renderError(error, for: request) })
        }
    }

    /// Registers the routes and installs the gate (when there is an authority).
    public func register(on router: inout Router) {
        router.get("/signin", access: .anyone) { request in self.signInPage(request) }
        router.post("/signin", access: .anyone) { request in await self.signIn(request) }
        router.post("/signout", access: .owner) { request in self.signOut(request, everywhere: false) }
        router.post("/signout/everywhere", access: .owner) { request in
            self.signOut(request, everywhere: true)
        }
        if let gate { router.gate = gate }
    }

    /// `GET /signin`: the form, or the sign-out buttons when signed in, or how to set an owner.
    func signInPage(_ request: Request) -> Response {
        let next = LocalRedirect.target(request.queryValue("next"))
        return SignInPage(state: state(for: request, next: next)).response(
            renderer: app.renderer, language: language(request))
    }

    private func state(for request: Request, next: String) -> SignInPage.State {
        guard let authority else { return .noDatabase }
        guard authority.hasOwner else { return .noOwner }
        if let session = session(request) { return .signedIn(csrf: session.csrfToken) }
        return .form(next: next)
    }

    /// `POST /signin` (`password`, `next`): a new session and a `303` to `next`, or the form
    /// again with why not (`401`, `429` + `Retry-After`, `503` + `Retry-After`).
    func signIn(_ request: Request) async -> Response {
        let language = language(request)
        let form = FormBody(request)
        let next = LocalRedirect.target(form.value("next"))
        let strings = app.renderer.localizer.strings(for: language)
        func page(_ status: Int, _ message: String?, headers: HTTPHeaders = [:]) -> Response {
            SignInPage(state: state(for: request, next: next), message: message).response(
                renderer: app.renderer, language: language, status: status, headers: headers)
        }
        guard let authority else { return page(403, nil) }
        guard authority.hasOwner else { return page(403, nil) }
        let address = transport.clientAddress(request) ?? "unknown"
        // Another site's form cannot sign a browser in (into anyone's session).
        if CrossSiteCheck.isCrossSite(request, transport: transport) {
            logger.warning("refused a sign-in from \(address): sent from another site")
            return page(403, strings["signInCrossSite"])
        }
        let password = form.value("password") ?? ""
        // The authority logs every outcome with the address (never the password).
        switch await authority.signIn(password: password, address: address) {
        case .signedIn(let session):
            // Whatever session the browser brought ends here: the new one is never its value.
            if let old = SessionCookie.value(in: request, secure: transport.isSecure(request)) {
                authority.signOut(cookieValue: old)
            }
            var response = Response.redirect(to: next)
            response.headers.set("Cache-Control", "no-store")
            response.headers.add(
                "Set-Cookie", SessionCookie.set(session.cookieValue, secure: transport.isSecure(request)))
            return response
        case .wrongPassword:
            return page(401, strings["signInWrong"])
        case .throttled(let retryAfter):
            let seconds = max(1, retryAfter)
            return page(
                429, strings["signInThrottled"]?.replacingOccurrences(of: "{seconds}", with: String(seconds)),
                headers: ["Retry-After": String(seconds)])
        case .busy(let retryAfter):
            let seconds = max(1, retryAfter)
            return page(503, strings["signInBusy"], headers: ["Retry-After": String(seconds)])
        case .noOwner:
            return page(403, nil)
        }
    }

    /// `POST /signout` (this session) and `POST /signout/everywhere` (all of them): the cookie
    /// is cleared and the browser goes to the sign-in page.
    func signOut(_ request: Request, everywhere: Bool) -> Response {
        let secure = transport.isSecure(request)
        if let authority {
            if everywhere {
                authority.signOutEverywhere()
            } else if let value = SessionCookie.value(in: request, secure: secure) {
                authority.signOut(cookieValue: value)
            }
        }
        // The authority logs an end of every session; one session's end is logged here.
        if !everywhere { logger.notice("signed out") }
        var response = Response.redirect(to: "/signin")
        response.headers.set("Cache-Control", "no-store")
        response.headers.add("Set-Cookie", SessionCookie.clear(secure: secure))
        return response
    }

    private func session(_ request: Request) -> ActiveSession? {
        guard let authority, let value = SessionCookie.value(in: request, secure: transport.isSecure(request))
        else { return nil }
        return authority.session(cookieValue: value)
    }

    /// `?lang=` when supported, else the `lang` of the page the reader came from (`next`), else
    /// `Accept-Language`.
    private func language(_ request: Request) -> String {
        let localizer = app.renderer.localizer
        let next = request.queryValue("next") ?? FormBody(request).value("next")
        let fromNext = next.flatMap {
            URLComponents(string: $0)?.queryItems?.first { $0.name == "lang" }?.value
        }
        for code in [request.queryValue("lang"), fromNext].compactMap({ $0?.lowercased() })
        where localizer.supports(code) {
            return code
        }
        return localizer.negotiate(acceptLanguage: request.headers["Accept-Language"])
    }
}
