import CMicroHTTPD
import Foundation
public import Logging
public import Metrics
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd: a thread pool (poll or epoll), keep-alive, suspended
/// connections for async handlers, and a graceful shutdown that never trips MHD's panic.
///
/// No C type escapes this class: handlers see ``Request`` and return ``Response``.
public final class Server: Sendable {
    /// The port actually bound (useful with port 0).
    public let port: Int
    /// `host:port` as bound, for the startup line.
    public let address: String

    private let core: ServerCore
    private let daemon: Mutex<OpaquePointer?>
    private let listenDescriptor: Int32
    private let departures: DepartureWatch

    /// Binds and starts serving `router` immediately on background threads. With `metrics`, the
    /// server registers its series there, each name starting with `metricPrefix` and `_` (the
    /// app's namespace): requests, durations and bytes per route pattern, open connections,
    /// pending requests and streams.
    public init(
        router: Router, options: ServerOptions = ServerOptions(), logger: Logger = Logger(),
        metrics: MetricsRegistry? = nil, metricPrefix: String = "server"
    ) throws(ServerError) {
        try options.validate()
        if options.tls != nil, MHD_is_feature_supported(.FEATURE_TLS) != .YES {
            throw ServerError.tlsUnsupported
        }
        let socket = try ListenSocket.open(
            host: options.host, port: options.port, backlog: options.listenBacklog)
        let core = ServerCore(
            router: router, logger: logger, options: options,
            metrics: metrics.map {
                ServerMetrics(registry: $0, prefix: metricPrefix, routes: router.routePatterns)
            })
        // libmicrohttpd's threads call back with this pointer until MHD_stop_daemon returns, so
        // it owns a reference: a Server released without shutdown() leaks the daemon instead of
        // leaving it to call into a freed core. Released after MHD_stop_daemon in shutdown().
        let corePointer = Unmanaged.passRetained(core).toOpaque()

        var items: [MHD_OptionItem] = [
            // First, as libmicrohttpd asks: its own messages (a rejected key, a failed TLS
            // handshake) go to our log.
            MHD_OptionItem(
                option: .EXTERNAL_LOGGER, value: prh_external_logger_value(), ptr_value: core.logTarget),
            MHD_OptionItem(option: .LISTEN_SOCKET, value: Int(socket.descriptor), ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: options.connectionLimit, ptr_value: nil),
            MHD_OptionItem(
                option: .PER_IP_CONNECTION_LIMIT, value: options.perIPConnectionLimit, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: options.connectionTimeout, ptr_value: nil),
            MHD_OptionItem(
                option: .CONNECTION_MEMORY_LIMIT, value: options.connectionMemoryLimit, ptr_value: nil),
            MHD_OptionItem(
                option: .NOTIFY_COMPLETED,
                value: unsafeBitCast(mhdRequestCompleted as MHD_RequestCompletedCallback, to: Int.self),
                ptr_value: corePointer),
            MHD_OptionItem(
                option: .URI_LOG_CALLBACK,
                value: unsafeBitCast(mhdRequestStarted as MHDURICallback, to: Int.self),
                ptr_value: corePointer),
            MHD_OptionItem(
                option: .UNESCAPE_CALLBACK,
                value: unsafeBitCast(mhdIdentityUnescape as MHDUnescapeCallback, to: Int.self),
                ptr_value: nil),
        ]
        if options.threads > 1 {
            items.append(MHD_OptionItem(option: .THREAD_POOL_SIZE, value: options.threads, ptr_value: nil))
        }

        let mechanism = options.polling == .epoll ? MHD_USE_EPOLL.rawValue : MHD_USE_POLL.rawValue
        var flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | mechanism | MHD_ALLOW_SUSPEND_RESUME.rawValue
            | MHD_USE_ITC.rawValue | MHD_USE_ERROR_LOG.rawValue
        // GnuTLS copies the PEM text while the daemon starts; these buffers outlive that call.
        let certificate = options.tls.map { Array($0.certificatePEM.utf8CString) } ?? []
        let key = options.tls.map { Array($0.keyPEM.utf8CString) } ?? []
        let started = certificate.withUnsafeBufferPointer { certificate in
            key.withUnsafeBufferPointer { key in
                if options.tls != nil {
                    flags |= MHD_USE_TLS.rawValue
                    items.append(
                        MHD_OptionItem(
                            option: .HTTPS_MEM_CERT, value: 0,
                            ptr_value: UnsafeMutableRawPointer(mutating: certificate.baseAddress)))
                    items.append(
                        MHD_OptionItem(
                            option: .HTTPS_MEM_KEY, value: 0,
                            ptr_value: UnsafeMutableRawPointer(mutating: key.baseAddress)))
                }
                items.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))
                return items.withUnsafeMutableBufferPointer {
                    prh_start_daemon(flags, mhdAccessHandler, corePointer, $0.baseAddress)
                }
            }
        }
        guard let started else {
            let reason = core.startupMessages()
            Unmanaged<ServerCore>.fromOpaque(corePointer).release()
            close(socket.descriptor)
            if options.tls != nil {
                throw ServerError.invalidTLS("certificate and key rejected: \(reason ?? "no reason given")")
            }
            throw ServerError.daemonFailed
        }
        core.markStarted()
        self.core = core
        self.daemon = Mutex(started)
        self.listenDescriptor = socket.descriptor
        self.departures = DepartureWatch { [weak core] in core?.openStreams ?? [] }
        self.port = socket.port
        self.address = socket.displayAddress
        self.scheme = options.tls == nil ? "http" : "https"
        if let metrics {
            metrics.sampled(
                metricPrefix + "_http_open_connections", help: "Open client connections.", kind: .gauge
            ) { [weak self] in Double(self?.openConnections ?? 0) }
            metrics.sampled(
                // The name the app has always exposed: its only async handlers wait for a reload.
                metricPrefix + "_refresh_waiters", help: "Requests suspended while their handlers run.",
                kind: .gauge
            ) { [weak self] in Double(self?.pendingRequests ?? 0) }
            metrics.sampled(
                metricPrefix + "_event_streams_open", help: "Open streaming responses.",
                kind: .gauge
            ) { [weak self] in Double(self?.openStreams ?? 0) }
        }
    }

    deinit {
        departures.stop()
    }

    /// `http` or `https`, for the startup line.
    public let scheme: String

    /// Connections libmicrohttpd holds open now, across every worker thread.
    public var openConnections: Int {
        daemon.withLock { daemon in daemon.map { Int(prh_daemon_connections($0)) } ?? 0 }
    }

    /// Streaming responses (event streams) open now.
    public var openStreams: Int { core.streamCount }

    /// Requests whose async handlers are still running.
    public var pendingRequests: Int { core.pendingCount }

    /// Responses kept to answer repeated requests without routing (``ServerOptions/storedResponses``).
    public var storedResponseCount: Int { core.storedResponses?.count ?? 0 }

    /// Stops accepting, lets pending handlers finish within the grace period, answers the rest
    /// `503`, waits for responses to be sent, then stops libmicrohttpd. Safe to call twice.
    public func shutdown() async {
        guard let running = daemon.withLock({ $0 }) else { return }
        let waiting = core.beginShutdown()
        _ = MHD_quiesce_daemon(running)
        core.logger.notice("shutting down: \(waiting) pending request(s)")
        // Open streams never end by themselves: end each one cleanly now (its last chunk), and
        // the clients reconnect elsewhere (EventSource retries by itself).
        let streams = core.finishStreams()
        if streams > 0 { core.logger.notice("shutting down: ended \(streams) open stream(s)") }

        let graceEnd = ContinuousClock.now + core.options.shutdownGracePeriod
        while core.pendingCount > 0, ContinuousClock.now < graceEnd {
            try? await Task.sleep(for: .milliseconds(10))
        }
        if core.pendingCount > 0 {
            core.logger.warning(
                "grace period over: answering \(core.pendingCount) pending request(s) with 503")
            let error = HTTPError.unavailable(
                retryAfter: core.options.retryAfterSeconds, message: "Server is shutting down.")
            var response = core.router.shutdownResponse(for: error)
            response.headers.set("Connection", "close")
            core.abandonPending(with: response)
        }
        // Responses to resumed connections are written by MHD's threads; wait until every
        // request has completed so none is cut off and no connection is left suspended.
        let sendEnd = ContinuousClock.now + .seconds(5)
        while core.inFlight.load(ordering: .relaxed) > 0, ContinuousClock.now < sendEnd {
            try? await Task.sleep(for: .milliseconds(5))
        }
        departures.stop()
        let toStop = daemon.withLock { state -> OpaquePointer? in
            defer { state = nil }
            return state
        }
        if let toStop {
            MHD_stop_daemon(toStop)
            close(listenDescriptor)
            Unmanaged.passUnretained(core).release()
        }
        core.logger.notice("stopped")
    }
}
