import Dispatch
import Foundation

/// Test support shared by the Swift suites.
///
/// A blocking TCP client for exact-bytes tests. Blocking calls run on threads of their own
/// (`offPool`), so a test waiting for bytes cannot starve the server's Tasks.
public final class RawConnection: @unchecked Sendable {
    /// The socket.
    public let descriptor: Int32
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port`, optionally from another loopback `source` address.
    public init(port: Int, timeoutSeconds: Int = 10, source: String? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawError.io("socket") }
        if let source {
            // Another loopback address (127.0.0.2, …) stands in for a second client.
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            _ = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        // No close here: the instance is fully initialized, so deinit runs on this throw and
        // closes the socket; closing twice could close a descriptor another thread just got.
        guard result == 0 else { throw RawError.io("connect") }
    }

    deinit { close(descriptor) }

    /// Sends UTF-8 text.
    public func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    /// Sends raw bytes.
    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Foundation.send(descriptor, $0.baseAddress, $0.count, 0)
            }
            guard sent > 0 else { throw RawError.io("send") }
            offset += sent
        }
    }

    /// Reads one response. `head` says whether the request was HEAD (no body follows).
    public func readResponse(head: Bool = false) throws -> RawResponse {
        while true {
            if let response = try RawResponse.parse(&buffer, head: head) { return response }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count == 0 { throw RawError.closed(buffer.count) }
            if count < 0 { throw RawError.io("recv (timeout?)") }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    /// Whether the server closed the connection (reads EOF) within the timeout.
    public func readsEOF() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
    }

    /// Bytes received beyond the last parsed response.
    public var leftover: [UInt8] { buffer }

    /// Sends each complete request (head, and body if any) over one new connection to `port`,
    /// reading each response before sending the next (a `HEAD` request's without a body).
    public static func exchange(port: Int, _ requests: [String]) async throws -> [RawResponse] {
        try await offPool {
            let connection = try RawConnection(port: port)
            var responses: [RawResponse] = []
            for request in requests {
                try connection.send(request)
                responses.append(try connection.readResponse(head: request.hasPrefix("HEAD")))
            }
            return responses
        }
    }

    /// Runs blocking work off the cooperative pool.
    public static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            // A thread of its own: on Linux, Swift's default executor runs Tasks on Dispatch's
            // global queue threads, so blocking one of those can starve the server's handlers.
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }
}

/// Why a raw exchange failed.
public enum RawError: Error {
    /// A socket call failed.
    case io(String)
    /// The peer closed the connection; the payload is how many bytes were buffered.
    case closed(Int)
    /// The response could not be parsed.
    case malformed
}

/// One parsed HTTP response.
public struct RawResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Header fields in order.
    public var headers: [(String, String)]
    /// The body bytes.
    public var body: [UInt8]

    /// The first value of header `name`, case-insensitive.
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    static func parse(_ buffer: inout [UInt8], head: Bool) throws -> RawResponse? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = buffer.firstRange(of: separator) else { return nil }
        let headText = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw RawError.malformed }
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (
                String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            )
        }
        let length =
            head || status == 304 || status == 204
            ? 0 : Int(headers.first { $0.0.lowercased() == "content-length" }?.1 ?? "0") ?? 0
        let bodyStart = end.upperBound
        guard buffer.count - bodyStart >= length else { return nil }
        let body = Array(buffer[bodyStart..<bodyStart + length])
        buffer.removeFirst(bodyStart + length)
        return RawResponse(status: status, headers: headers, body: body)
    }
}
