/// Decides whether a request may reach its route (``Access``), and says who sent it.
///
/// Called on the server thread for every routed request before its handler, so it must not
/// block: answers come from memory (a session table kept in step with its store), never from
/// a slow check. Password verification belongs in a handler, not here.
///
/// Stored responses (answered before routing) ask it too: a stored answer of a route whose
/// access the gate does not open to everyone goes only to a request ``admit(_:to:)`` admits.
public protocol AccessGate: Sendable {
    /// Admits `request` to a route declared with `access`: returns nil and may set
    /// ``Request/principal``, or returns the refusal to send instead (`303` to a sign-in page,
    /// `401`, `403`).
    func admit(_ request: inout Request, to access: Access) -> Response?

    /// Whether every `GET` or `HEAD` request is admitted to routes declared with `access` right
    /// now (no owner is set, or the river is public): a stored answer of such a route is then
    /// sent without building the request to ask ``admit(_:to:)``. Asked on every stored answer
    /// of a guarded route, so it must be a read of memory.
    func admitsEveryone(to access: Access) -> Bool
}

extension AccessGate {
    /// Only `.anyone` routes are open to everyone unless a gate says more.
    public func admitsEveryone(to access: Access) -> Bool { access == .anyone }
}
