import HTTPServer
import Mustache

/// The sign-in page in one of its states, rendered per request (never stored: it may carry
/// the session's CSRF token), in the river's look.
struct SignInPage {
    /// What the page shows.
    enum State {
        /// The server runs without a database: how to keep an owner.
        case noDatabase
        /// A database without an owner: how to set one.
        case noOwner
        /// The password form, sending the browser to `next` afterwards.
        case form(next: String)
        /// Signed in: the sign-out buttons with the session's CSRF token.
        case signedIn(csrf: String)
    }

    var state: State
    /// A line above the form (a wrong password, a throttle), already in the page's language.
    var message: String?

    /// The page as a response with `status` and `headers` added.
    func response(
        renderer: PageRenderer, language: String, status: Int = 200, headers extra: HTTPHeaders = [:]
    ) -> Response {
        var context: [String: MustacheValue] = [
            "lang": .string(language),
            "dir": .string(renderer.localizer.direction(for: language)),
            "t": renderer.strings(language),
        ]
        if let message { context["message"] = .string(message) }
        switch state {
        case .noDatabase: context["noDatabase"] = .bool(true)
        case .noOwner: context["noOwner"] = .bool(true)
        case .form(let next): context["form"] = .object(["next": .string(next)])
        case .signedIn(let csrf):
            context["signedIn"] = .bool(true)
            context["csrf"] = .string(csrf)
        }
        var headers = SecurityHeaders.html
        headers.set("Content-Type", "text/html; charset=utf-8")
        headers.set("Cache-Control", "no-store")
        for field in extra { headers.add(field.name, field.value) }
        let body: [UInt8]
        do {
            var bytes: [UInt8] = []
            try renderer.library.render(.object(context), template: "signin", into: &bytes)
            body = bytes
        } catch {
            // Checked at startup (a required template); a last resort that still says something.
            return Response(status: 500, headers: ["Content-Type": "text/plain; charset=utf-8"])
        }
        return Response(status: status, headers: headers, body: body)
    }
}
