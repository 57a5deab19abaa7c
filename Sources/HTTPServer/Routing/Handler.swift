/// How a route produces its response.
///
/// `immediate` handlers run on the libmicrohttpd thread that read the request and must not
/// block (cached reads behind a short lock are fine). `async` handlers run in a Task while the
/// connection is suspended, so a slow one never holds a server thread.
public enum Handler: Sendable {
    /// Answers synchronously without waiting on anything.
    case immediate(@Sendable (Request) throws -> Response)
    /// Answers after awaiting, e.g. a reload.
    case async(@Sendable (Request) async throws -> Response)
}
