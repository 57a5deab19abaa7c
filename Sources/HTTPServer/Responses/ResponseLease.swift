/// A libmicrohttpd response lent to one request by a ``PreparedResponse``: its prepared
/// headers, the server's headers and the request's `X-Request-Id`, which the next borrower
/// overwrites with its own.
struct ResponseLease: @unchecked Sendable {
    /// Keeps the lender (and its pool) alive until the lease is given back.
    let owner: PreparedResponse
    let handle: OpaquePointer
    /// The server headers on `handle`.
    let serverHeaders: ServerHeaders
    /// The `X-Request-Id` value on `handle` (nil only if libmicrohttpd could not add it).
    let requestID: RequestIDSlot?
}
