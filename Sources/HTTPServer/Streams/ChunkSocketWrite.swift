import Glibc

/// One HTTP/1.1 chunk (`size CRLF bytes CRLF`) written straight to a connection's socket,
/// without blocking, by a ``ResponseStream`` whose connection libmicrohttpd has suspended.
///
/// Why: waking a suspended connection makes libmicrohttpd 0.9.75's thread walk every suspended
/// connection it holds (thousands of open event streams), and other requests on that thread
/// wait for the walk (bench/EVENTS.md). A suspended connection is left alone by libmicrohttpd,
/// and its reader suspends only after the previous chunk was sent in full, so a whole chunk
/// written between its own chunks keeps the framing intact.
enum ChunkSocketWrite {
    enum Outcome: Equatable {
        /// The whole chunk is in the socket's buffer.
        case sent
        /// Nothing was written (the buffer is full): libmicrohttpd must deliver it when it can.
        case nothingSent
        /// Part of a chunk was written, or the peer is gone: the stream cannot continue.
        case broken
    }

    static func send(_ bytes: [UInt8], to socket: Int32) -> Outcome {
        var chunk = Array(String(bytes.count, radix: 16).utf8)
        chunk.reserveCapacity(chunk.count + bytes.count + 4)
        chunk += [13, 10]
        chunk += bytes
        chunk += [13, 10]
        let written = chunk.withUnsafeBytes { buffer in
            Glibc.send(socket, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
        }
        if written == chunk.count { return .sent }
        if written < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return .nothingSent }
        return .broken
    }
}
