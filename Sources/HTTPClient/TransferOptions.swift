/// What one GET sends and checks beyond its ``FetchLimits``.
struct TransferOptions: Sendable {
    /// The `Accept` header.
    var accept: String
    /// Sent as `If-None-Match`.
    var etag: String?
    /// Sent as `If-Modified-Since`.
    var lastModified: String?
    /// When set, every address connected to (redirects included) is checked; environment
    /// proxies are then not used. Nil for the operator's own `--source`, which may be anywhere.
    var addressPolicy: AddressPolicy?
    /// libcurl `CURLOPT_RESOLVE` entries (`host:port:address`): tests pin a name to loopback.
    var resolve: [String] = []
    /// Checked on the response's `Content-Type` before any body byte is kept.
    var acceptsContentType: (@Sendable (String?) -> Bool)?

    init(accept: String) {
        self.accept = accept
    }

    /// Whether the transfer must not run on a kept handle (see `Transfer.attach(to:ownHandle:)`).
    var needsOwnHandle: Bool { addressPolicy != nil || !resolve.isEmpty }
}
