import Foundation

/// Limits and bindings for a ``Server``. The defaults suit a small public service.
public struct ServerOptions: Sendable {
    /// Address to bind: `127.0.0.1` (local only), `0.0.0.0` (every IPv4 interface), `::`, ...
    public var host: String = "127.0.0.1"
    /// TCP port; `0` asks the kernel for a free one (see ``Server/port``).
    public var port: Int = 8080
    /// Worker threads in libmicrohttpd's pool.
    public var threads: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// Most simultaneous connections; more are refused by libmicrohttpd.
    public var connectionLimit: Int = 1024
    /// Most simultaneous connections from one IP address.
    public var perIPConnectionLimit: Int = 256
    /// Seconds of inactivity after which a connection is closed (slow or idle clients).
    public var connectionTimeout: Int = 15
    /// Bytes of memory per connection for the request line, headers and I/O buffers.
    /// libmicrohttpd 0.9.75 zeroes all of it on every request, so bigger costs time per request
    /// and resident memory per connection; 16 KiB holds a request with several KiB of cookies.
    public var connectionMemoryLimit: Int = 16 * 1024
    /// How libmicrohttpd's worker threads wait for sockets.
    public var polling: Polling = .poll
    /// Largest accepted request body in bytes; larger ones are answered `413`.
    public var maxBodySize: Int = 1 << 20
    /// Most query parameters in one request; more are answered `414`.
    public var maxQueryParameters: Int = 256
    /// Most requests whose handlers may be awaiting at once; beyond it: `503` + `Retry-After`.
    public var maxPendingRequests: Int = 1024
    /// Most streaming responses (event streams) open at once; beyond it: `503` + `Retry-After`.
    /// They are not pending requests; each is a connection, so the connection limits apply too.
    public var maxStreams: Int = 512
    /// Most responses kept to answer repeated requests without routing (those the app marks
    /// with ``Response/reusable(while:isAt:)``; see ``StoredResponses``); 0 routes every request.
    public var storedResponses: Int = 64
    /// Seconds sent in `Retry-After` when refusing work.
    public var retryAfterSeconds: Int = 1
    /// How long shutdown waits for pending handlers before answering them `503`.
    public var shutdownGracePeriod: Duration = .seconds(10)
    /// `listen(2)` backlog.
    public var listenBacklog: Int = 1024
    /// Serve HTTPS with these credentials (libmicrohttpd's GnuTLS) instead of plain HTTP.
    public var tls: TLSCredentials?
    /// With ``tls``: send `Strict-Transport-Security` (one year) on every response.
    public var strictTransportSecurity = false

    /// The event mechanism of libmicrohttpd's internal threads.
    public enum Polling: String, Sendable, CaseIterable {
        /// `poll(2)`, the default: libmicrohttpd 0.9.75's epoll loop stalls for the full
        /// connection timeout when `epoll_wait` returns exactly 128 ready sockets (seen with
        /// 256 busy keep-alive connections on one thread), and poll has no such limit.
        case poll
        /// `epoll(7)`: scales to more idle connections, subject to the stall above.
        case epoll
    }

    /// Creates options with the defaults above.
    public init() {}

    /// Checks values that would make libmicrohttpd misbehave, with a message naming the option.
    public func validate() throws(ServerError) {
        func require(_ condition: Bool, _ message: String) throws(ServerError) {
            if !condition { throw ServerError.invalidOption(message) }
        }
        try require((0...65535).contains(port), "port must be between 0 and 65535, got \(port)")
        try require((1...256).contains(threads), "threads must be between 1 and 256, got \(threads)")
        try require(connectionLimit >= 1, "connection limit must be at least 1")
        try require(perIPConnectionLimit >= 0, "per-IP connection limit must be 0 (none) or more")
        try require(connectionTimeout >= 0, "connection timeout must be 0 (none) or more seconds")
        try require(connectionMemoryLimit >= 8 * 1024, "connection memory must be at least 8 KiB")
        try require(maxBodySize >= 0, "max body size must be 0 or more")
        try require(maxPendingRequests >= 1, "max pending requests must be at least 1")
        try require(maxStreams >= 0, "max streams must be 0 (none allowed) or more")
        try require(tls != nil || !strictTransportSecurity, "HSTS needs TLS (a certificate and key)")
        if let problem = tls?.problem() { throw ServerError.invalidTLS(problem) }
        try require(maxQueryParameters >= 1, "max query parameters must be at least 1")
        try require(storedResponses >= 0, "stored responses must be 0 (none) or more")
    }
}
