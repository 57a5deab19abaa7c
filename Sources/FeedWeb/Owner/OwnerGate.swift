import Foundation
public import HTTPServer
import Logging
import Owner
import Synchronization

/// The ``AccessGate`` of a server with a database (``OwnerAuthority``): who may use which route.
///
/// - `.anyone` routes: everyone, untouched.
/// - No owner set yet: `.reader` routes and `.owner` reads are open (the pages say how to set
///   one); `.owner` changes are `403 owner_required` with that how-to.
/// - `Authorization: Bearer <token>` on `/api/…`: the token's principal; an unknown or revoked
///   token is `401`. Bearer requests carry no cookie, so they need no CSRF token.
/// - The session cookie: the session's principal. A change (not `GET`/`HEAD`) must not say it
///   came from another site (``CrossSiteCheck``), and a change of an `.owner` route must carry
///   the session's CSRF token (form field `csrf` or `X-CSRF-Token`): else `403`.
/// - Anonymous: `.reader` routes are open with `--public-river` (changes: the cross-site check
///   only); anything else is `401` with `WWW-Authenticate` under `/api/`, and a `303` to
///   `/signin?next=<the path>` for pages.
public final class OwnerGate: AccessGate {
    let authority: OwnerAuthority
    let publicRiver: Bool
    let transport: ClientTransport
    /// Renders a refusal as the route's errors look (a page, or the API's JSON envelope).
    let render: @Sendable (HTTPError, Request) -> Response
    let logger: Logger

    init(
        authority: OwnerAuthority, publicRiver: Bool, transport: ClientTransport, logger: Logger,
        render: @escaping @Sendable (HTTPError, Request) -> Response
    ) {
        self.authority = authority
        self.publicRiver = publicRiver
        self.transport = transport
        self.logger = logger
        self.render = render
    }

    /// Until when (``DispatchTime`` nanoseconds) a "no owner" answer holds without asking again.
    private let noOwnerUntil = Atomic<UInt64>(0)
    /// How long a "no owner" answer holds: a password set while the server runs closes the
    /// river within this; meanwhile a cached page of an owner-less server costs no file read.
    static let noOwnerRecheck: UInt64 = 1_000_000_000

    /// Whether an owner is set. The authority keeps a yes (nothing removes an owner); a no is
    /// kept here for ``noOwnerRecheck``, since asking the file is a read per request.
    var hasOwner: Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        if now < noOwnerUntil.load(ordering: .relaxed) { return false }
        let has = authority.hasOwner
        if !has { noOwnerUntil.store(now + Self.noOwnerRecheck, ordering: .relaxed) }
        return has
    }

    /// The realm of `WWW-Authenticate`.
    static let realm = "pullrefresh"

    /// Everyone reads the river while it is public or no owner is set, and the owner's pages
    /// while no owner is set.
    public func admitsEveryone(to access: Access) -> Bool {
        switch access {
        case .anyone: true
        case .reader: publicRiver || !hasOwner
        // Stored answers are only ever GETs: without an owner, the owner's pages are open to read.
        case .owner: !hasOwner
        }
    }

    /// Admits or refuses `request` by the rules of the type's documentation.
    public func admit(_ request: inout Request, to access: Access) -> Response? {
        if access == .anyone { return nil }
        let reads = request.method == "GET" || request.method == "HEAD"
        // A public river is read by everyone alike (its pages carry nothing personal): no lookups.
        if access == .reader, publicRiver, reads { return nil }
        guard hasOwner else {
            if !reads, CrossSiteCheck.isCrossSite(request, transport: transport) {
                return crossSite(request)
            }
            if access == .reader || reads { return nil }
            return render(Self.ownerRequired, request)
        }
        let api = Self.isAPI(request.path)
        if api, let bearer = Self.bearer(request) {
            guard let name = authority.token(bearer: bearer) else {
                logger.warning(
                    "refused an unknown or revoked token from \(address(request)) for \(Logger.printable(request.path))"
                )
                return render(Self.unauthorized(invalidToken: true), request)
            }
            request.principal = Principal(name: name, credential: .token)
            return nil
        }
        let secure = transport.isSecure(request)
        if let value = SessionCookie.value(in: request, secure: secure),
            let session = authority.session(cookieValue: value)
        {
            request.principal = Principal(
                name: session.userName, credential: .session, csrfToken: session.csrfToken)
            if reads { return nil }
            if CrossSiteCheck.isCrossSite(request, transport: transport) { return crossSite(request) }
            if access == .owner {
                let presented = request.headers["X-CSRF-Token"] ?? FormBody(request).value("csrf") ?? ""
                guard authority.csrfMatches(session, presented: presented) else {
                    logger.warning(
                        "refused \(request.method) \(Logger.printable(request.path)) from \(address(request)): missing or wrong CSRF token"
                    )
                    return render(
                        HTTPError(
                            403, code: "csrf",
                            message:
                                "This form is out of date or came from another site: reload the page and try again."
                        ),
                        request)
                }
            }
            return nil
        }
        if access == .reader, publicRiver {
            if !reads, CrossSiteCheck.isCrossSite(request, transport: transport) { return crossSite(request) }
            return nil
        }
        if api { return render(Self.unauthorized(invalidToken: false), request) }
        return Self.signInRedirect(request, reads: reads)
    }

    /// `303` to the sign-in page, which sends a reader back to the page they asked for.
    static func signInRedirect(_ request: Request, reads: Bool) -> Response {
        // A change cannot be replayed by a redirect: after signing in, the river.
        var response = Response.redirect(
            to: reads ? "/signin?next=" + FormEncoding.encode(localTarget(request)) : "/signin")
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    /// The request's path and query, percent-encoded again: the `next` it came from.
    static func localTarget(_ request: Request) -> String {
        var target = FormEncoding.encodePath(request.path)
        if !request.query.isEmpty {
            target +=
                "?"
                + request.query.map { FormEncoding.encode($0.name) + "=" + FormEncoding.encode($0.value) }
                .joined(separator: "&")
        }
        return target
    }

    static func isAPI(_ path: String) -> Bool {
        path == "/api" || path.hasPrefix("/api/")
    }

    /// The token of `Authorization: Bearer <token>`, or nil.
    static func bearer(_ request: Request) -> String? {
        guard let field = request.headers["Authorization"] else { return nil }
        let parts = field.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    static func unauthorized(invalidToken: Bool) -> HTTPError {
        HTTPError(
            401, code: invalidToken ? "invalid_token" : "unauthorized",
            message: invalidToken
                ? "The token is unknown or was revoked."
                : "Sign in at /signin, or send Authorization: Bearer with an app token.",
            headers: [
                "WWW-Authenticate": "Bearer realm=\"\(realm)\""
                    + (invalidToken ? ", error=\"invalid_token\"" : "")
            ])
    }

    static let ownerRequired = HTTPError(
        403, code: "owner_required",
        message:
            "No owner is set, so nothing can be changed yet. On the server, run: pullrefresh owner set-password --database FILE"
    )

    private func crossSite(_ request: Request) -> Response {
        logger.warning(
            "refused \(request.method) \(Logger.printable(request.path)) from \(address(request)): sent from another site"
        )
        return render(
            HTTPError(
                403, code: "cross_site", message: "Changes are accepted only from this site's own pages."),
            request)
    }

    private func address(_ request: Request) -> String {
        transport.clientAddress(request) ?? "an unknown address"
    }
}
