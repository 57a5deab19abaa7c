/// Decides whether a request may reach its route (``Access``), and says who sent it.
///
/// Called on the server thread for every routed request before its handler, so it must not
/// block: answers come from memory (a session table kept in step with its store), never from
/// a slow check. Password verification belongs in a handler, not here.
public protocol AccessGate: Sendable {
    /// Admits `request` to a route declared with `access`: returns nil and may set
    /// ``Request/principal``, or returns the refusal to send instead (`303` to a sign-in page,
    /// `401`, `403`).
    func admit(_ request: inout Request, to access: Access) -> Response?
}
