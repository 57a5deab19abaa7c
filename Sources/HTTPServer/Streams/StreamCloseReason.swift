/// Why a streaming response ended: the `reason` label of `pullrefresh_event_streams_closed_total`.
public enum StreamCloseReason: String, Sendable, CaseIterable {
    /// The client closed its connection (FIN or RST) while the stream waited for data, seen by
    /// the server's ``DepartureWatch`` within a fraction of a second.
    case clientClosed = "client_closed"
    /// A write found the client gone (a heartbeat or an event to a peer that left silently),
    /// or libmicrohttpd ended the connection for an error.
    case heartbeatFailed = "heartbeat_failed"
    /// The server is shutting down and ended the stream cleanly.
    case shutdown
    /// Refused past `--max-streams`, or closed because its client fell too far behind.
    case limit
    /// The app ended the stream (``ResponseStream/finish()``).
    case finished
}
