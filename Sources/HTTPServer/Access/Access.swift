/// Who may use a route, declared where the route is registered, so that a new route cannot
/// forget to ask: the router hands every request with its route's access to the
/// ``AccessGate`` (the app's notion of an owner, sessions and tokens) before the handler runs.
///
/// Without a gate (no owner is set), every route is open, as before owners existed.
public enum Access: Sendable, Equatable {
    /// Anyone, always: sign-in, health, static files, the manifest, the service worker, icons.
    case anyone
    /// Reading the river and its read-only API: the owner, or anyone when the river is public.
    case reader
    /// The owner only. A request that changes state and was authenticated by a cookie must also
    /// pass the gate's cross-site checks (its CSRF token, a same-origin `Origin`).
    case owner
}
