import CMicroHTTPD
import Glibc
import Synchronization

/// The body of a streaming response (see ``Response/streaming(_:status:headers:)``): bytes
/// written over time, for as long as the client stays, e.g. a `text/event-stream`.
///
/// The server gives each stream its own libmicrohttpd callback response. When the stream has
/// nothing to send, the connection is suspended (it leaves the poll set: no busy loop, no timeout);
/// ``write(_:)`` resumes it. A client that closes its connection while the stream waits is
/// noticed by the server's ``DepartureWatch``; one that left silently, on the next write (send a
/// heartbeat now and then). ``onClose`` then runs once, as it does after ``finish()``.
public final class ResponseStream: Sendable {
    // The connection pointers are only touched under the lock (and by libmicrohttpd).
    struct State: @unchecked Sendable {
        var pending: [UInt8] = []
        var finished = false
        var closed = false
        /// The connection while libmicrohttpd is suspended inside the reader.
        var suspended: OpaquePointer?
        /// Set when the server queued the stream's response.
        var connection: OpaquePointer?
        var onClose: (@Sendable () -> Void)?
        /// Run once libmicrohttpd has taken every pending byte, or the stream ends.
        var whenTaken: [@Sendable () -> Void] = []
        /// The libmicrohttpd thread that reads this stream (the thread of its connection).
        var serverThread: UInt?
        /// The server's bookkeeping, run when libmicrohttpd is done with the stream.
        var detach: (@Sendable (StreamCloseReason) -> Void)?
        /// The connection's socket when writes may go straight to it while suspended (plain
        /// HTTP/1.1 chunks; see ``ChunkSocketWrite``), else nil and writes wake the connection.
        var directSocket: Int32?
        /// A direct write failed part-way, or the client left: the reader ends the connection
        /// with an error.
        var broken = false
        /// The connection's socket, watched for the client's departure while suspended.
        var socket: Int32?
        /// Why the stream ends, once known (else ``StreamCloseReason/heartbeatFailed``).
        var closeReason: StreamCloseReason?
    }

    private let state: Mutex<State>
    /// Bytes waiting for a client that does not read; past it the stream is closed.
    public let maxPendingBytes: Int

    /// Creates a stream that will first send `initial`.
    public init(initial: [UInt8] = [], maxPendingBytes: Int = 64 * 1024) {
        state = Mutex(State(pending: initial))
        self.maxPendingBytes = maxPendingBytes
    }

    /// Queues bytes for the client; returns false once the stream is finished or closed (or
    /// when the client has fallen too far behind, which closes it).
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        write(bytes, whenTaken: nil)
    }

    /// Queues bytes like ``write(_:)`` and runs `taken` once libmicrohttpd has copied them (with
    /// everything queued before them) into the connection's buffer, when the write wakes the
    /// connection; else (the connection is still busy with earlier bytes, e.g. a client that does
    /// not read, or the bytes are refused) at once. `taken` runs on the server thread of the
    /// connection, or on the caller's. A publisher waking thousands of streams can so wait for
    /// the server to write one group before it wakes the next, instead of guessing how long that
    /// takes, and never waits on a client that fell behind. A plain HTTP/1.1 stream whose
    /// connection is suspended gets the bytes as one chunk written straight to its socket
    /// (``ChunkSocketWrite``): nothing is woken, and `taken` runs at once.
    @discardableResult
    public func write(_ bytes: [UInt8], whenTaken taken: (@Sendable () -> Void)?) -> Bool {
        // `waits`: whether `taken` waits for libmicrohttpd to read the bytes from `pending`.
        let (accepted, toResume, waits) = state.withLock { state -> (Bool, OpaquePointer?, Bool) in
            guard !state.finished, !state.closed else { return (false, nil, false) }
            if let socket = state.directSocket, state.suspended != nil, state.pending.isEmpty, !bytes.isEmpty
            {
                // Under the lock: the connection stays suspended (libmicrohttpd leaves its socket
                // alone) until it is resumed, which clears `suspended` under this lock first.
                switch ChunkSocketWrite.send(bytes, to: socket) {
                case .sent:
                    return (true, nil, false)
                case .nothingSent:
                    break  // Below: queued, and libmicrohttpd sends it once the client reads.
                case .broken:
                    // The framing cannot be repaired: end the connection (libmicrohttpd frees it).
                    state.broken = true
                    state.closeReason = state.closeReason ?? .heartbeatFailed
                    state.directSocket = nil
                    shutdown(socket, Int32(SHUT_RDWR))
                    return (false, takeSuspended(&state), false)
                }
            }
            if state.pending.count + bytes.count > maxPendingBytes {
                state.pending = []
                state.finished = true
                state.closeReason = state.closeReason ?? .limit
            } else {
                state.pending.append(contentsOf: bytes)
            }
            let toResume = takeSuspended(&state)
            if let taken, toResume != nil { state.whenTaken.append(taken) }
            return (!state.finished, toResume, toResume != nil)
        }
        if let toResume { MHD_resume_connection(toResume) }
        if !waits { taken?() }
        return accepted
    }

    /// Ends the stream cleanly (the last chunk) once what was written is sent.
    public func finish() {
        finish(reason: .finished)
    }

    /// Ends the stream cleanly, for `reason`.
    func finish(reason: StreamCloseReason) {
        let toResume = state.withLock { state -> OpaquePointer? in
            state.finished = true
            state.closeReason = state.closeReason ?? reason
            return takeSuspended(&state)
        }
        if let toResume { MHD_resume_connection(toResume) }
    }

    /// The socket to watch for the client's departure: set while the connection is suspended
    /// (libmicrohttpd then leaves the socket alone), else nil.
    var watchedSocket: Int32? {
        state.withLock { $0.suspended == nil ? nil : $0.socket }
    }

    /// The client closed its connection while the stream was suspended on `socket`: ends the
    /// stream now (libmicrohttpd closes the connection and frees its slot). Nothing happens
    /// if the connection was resumed meanwhile (it may no longer own that descriptor number).
    func clientDeparted(from socket: Int32) {
        let toResume = state.withLock { state -> OpaquePointer? in
            guard state.suspended != nil, state.socket == socket, !state.closed else { return nil }
            state.broken = true
            state.directSocket = nil
            state.closeReason = state.closeReason ?? .clientClosed
            return takeSuspended(&state)
        }
        if let toResume { MHD_resume_connection(toResume) }
    }

    /// The libmicrohttpd thread serving the stream's connection, once it has read from the stream
    /// (nil before). Each thread of the server's pool runs its own poll loop over its own
    /// connections: a publisher can wake a few streams of one thread at a time, leaving the other
    /// threads (and the requests they serve) alone meanwhile.
    public var serverThread: UInt? { state.withLock { $0.serverThread } }

    /// Bytes written and not yet taken by libmicrohttpd.
    package var pendingByteCount: Int { state.withLock { $0.pending.count } }

    /// Whether the stream ended: finished, or the client went away.
    public var isClosed: Bool { state.withLock { $0.closed || $0.finished } }

    /// Runs `handler` once the server is done with the stream (client gone, finished, or the
    /// server stopping); at once if that already happened.
    public func onClose(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.closed { return true }
            state.onClose = handler
            return false
        }
        if runNow { handler() }
    }

    /// Resuming is allowed only on a suspended connection: the flag and the suspend happen under
    /// the same lock in ``read(into:capacity:)``.
    private func takeSuspended(_ state: inout State) -> OpaquePointer? {
        defer { state.suspended = nil }
        return state.suspended
    }

    // MARK: Server side

    /// Called by the server as it queues the stream's response: `socket` is the connection's,
    /// `directWrites` whether the response goes out as plain HTTP/1.1 chunks (written straight to
    /// it while suspended). `detach` hears why the stream ended.
    func attach(
        connection: OpaquePointer, socket: Int32?, directWrites: Bool,
        detach: @escaping @Sendable (StreamCloseReason) -> Void
    ) {
        state.withLock {
            $0.connection = connection
            $0.detach = detach
            $0.socket = socket
            $0.directSocket = directWrites ? socket : nil
        }
    }

    /// libmicrohttpd's content reader: copies what is pending, ends the stream when finished,
    /// or suspends the connection (inside the reader, under the lock) and returns 0.
    /// The ``write(_:whenTaken:)`` handlers run once the pending bytes are all copied, after the lock.
    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        let thread = UInt(bitPattern: Int(bitPattern: pthread_self()))
        let (result, taken) = state.withLock { state -> (Int, [@Sendable () -> Void]) in
            state.serverThread = thread
            if !state.pending.isEmpty {
                let count = min(capacity, state.pending.count)
                state.pending.withUnsafeBytes { bytes in
                    UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress!, byteCount: count)
                }
                state.pending.removeFirst(count)
                guard state.pending.isEmpty else { return (count, []) }
                defer { state.whenTaken = [] }
                return (count, state.whenTaken)
            }
            if state.broken { return (prh_content_reader_end_with_error(), []) }
            if state.finished { return (prh_content_reader_end_of_stream(), []) }
            guard let connection = state.connection else { return (prh_content_reader_end_with_error(), []) }
            state.suspended = connection
            MHD_suspend_connection(connection)
            return (0, [])
        }
        for handler in taken { handler() }
        return result
    }

    /// libmicrohttpd freed the response (the connection is gone), or the server refused the
    /// stream before queueing it (`reason` then says why).
    func closed(reason refused: StreamCloseReason? = nil) {
        let (handler, detach, taken, reason) = state.withLock { state in
            state.closed = true
            state.suspended = nil
            state.connection = nil
            state.directSocket = nil
            state.socket = nil
            defer {
                state.onClose = nil
                state.detach = nil
                state.whenTaken = []
            }
            let reason = refused ?? state.closeReason ?? .heartbeatFailed
            return (state.onClose, state.detach, state.whenTaken, reason)
        }
        detach?(reason)
        for untaken in taken { untaken() }
        handler?()
    }

    /// A libmicrohttpd response reading from this stream, or nil when it cannot allocate one.
    func makeHandle(block: Int = 4096) -> OpaquePointer? {
        let retained = Unmanaged.passRetained(self).toOpaque()
        guard
            let handle = MHD_create_response_from_callback(
                UInt64.max, block, mhdStreamRead, retained, mhdStreamFreed)
        else {
            Unmanaged<ResponseStream>.fromOpaque(retained).release()
            return nil
        }
        return handle
    }
}

/// The content reader of streaming responses.
func mhdStreamRead(
    _ cls: UnsafeMutableRawPointer?, _ position: UInt64, _ buffer: UnsafeMutablePointer<CChar>?, _ max: Int
) -> Int {
    guard let cls, let buffer else { return prh_content_reader_end_with_error() }
    return Unmanaged<ResponseStream>.fromOpaque(cls).takeUnretainedValue().read(into: buffer, capacity: max)
}

/// The free callback of streaming responses: the stream learns it is closed and is released.
func mhdStreamFreed(_ cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    let stream = Unmanaged<ResponseStream>.fromOpaque(cls)
    stream.takeUnretainedValue().closed()
    stream.release()
}
