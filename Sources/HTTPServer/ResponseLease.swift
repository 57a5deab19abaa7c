/// A libmicrohttpd response lent to one request by a ``PreparedResponse``: its prepared
/// headers plus the request's own (`X-Request-Id`, HSTS), which the next borrower swaps.
struct ResponseLease: @unchecked Sendable {
    /// Keeps the lender (and its pool) alive until the lease is given back.
    let owner: PreparedResponse
    let handle: OpaquePointer
    /// The per-request headers on `handle` now.
    var added: [(name: String, value: String)]
}
