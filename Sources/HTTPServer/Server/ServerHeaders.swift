/// Headers a server adds to every response it sends (HSTS, from the options), fixed when the
/// server is made.
///
/// A class so that a pooled libmicrohttpd response can remember, by identity, which server's
/// headers it already carries: they are added to it once, not on every request.
final class ServerHeaders: Sendable {
    let fields: [(name: String, value: String)]

    init(_ fields: [(name: String, value: String)]) {
        self.fields = fields
    }
}
