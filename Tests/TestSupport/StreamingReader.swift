import Foundation

/// Reads a response that never ends by itself (an event stream) from a ``RawConnection``: the
/// head once, then the body as it arrives, de-chunked when the head says `chunked` (HTTP/1.0
/// clients get it unframed, ending when the connection closes).
public final class StreamingReader: @unchecked Sendable {
    /// The connection read from.
    public let connection: RawConnection
    private var raw: [UInt8] = []
    /// The body decoded so far (chunk framing removed).
    public private(set) var body: [UInt8] = []
    /// Whether the last chunk (`0\r\n\r\n`) arrived: the server ended the stream cleanly.
    public private(set) var ended = false
    private var headRead = false
    /// Whether the body comes in chunks (from the head's `Transfer-Encoding`).
    public private(set) var chunked = true

    /// Wraps a connection whose request was already sent.
    public init(_ connection: RawConnection) {
        self.connection = connection
    }

    /// The status line and header fields, read up to the blank line.
    public func readHead() throws -> (status: Int, headers: [(String, String)]) {
        let separator: [UInt8] = [13, 10, 13, 10]
        while raw.firstRange(of: separator) == nil { try receive() }
        let end = raw.firstRange(of: separator)!
        let lines = String(decoding: raw[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        raw.removeSubrange(..<end.upperBound)
        let status = Int(lines[0].split(separator: " ")[1]) ?? 0
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (
                String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            )
        }
        chunked = headers.contains {
            $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased() == "chunked"
        }
        headRead = true
        try decodeChunks()
        return (status, headers)
    }

    /// The body text once it contains `marker` (reading as needed), or an error on timeout/close.
    @discardableResult
    public func read(until marker: String) throws -> String {
        while !text.contains(marker) {
            guard !ended else { throw RawError.closed(body.count) }
            try receive()
        }
        return text
    }

    /// Reads until the server ends the stream with its last chunk, then expects EOF.
    public func readToEnd() throws -> String {
        while !ended { try receive() }
        return text
    }

    /// The decoded body as UTF-8.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// Forgets the body read so far (to look only at what comes next).
    public func discardBody() { body.removeAll() }

    private func receive() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(connection.descriptor, &chunk, chunk.count, 0)
        if count == 0, headRead, !chunked {
            ended = true
            return
        }
        if count == 0 { throw RawError.closed(body.count) }
        if count < 0 { throw RawError.io("recv (timeout?)") }
        raw.append(contentsOf: chunk[..<count])
        if headRead { try decodeChunks() }
    }

    private func decodeChunks() throws {
        guard chunked else {
            body.append(contentsOf: raw)
            raw.removeAll()
            return
        }
        let lineEnd: [UInt8] = [13, 10]
        while let sizeEnd = raw.firstRange(of: lineEnd) {
            let sizeText = String(decoding: raw[..<sizeEnd.lowerBound], as: UTF8.self)
            guard let size = Int(sizeText.split(separator: ";")[0], radix: 16) else {
                throw RawError.malformed
            }
            let dataStart = sizeEnd.upperBound
            guard raw.count >= dataStart + size + 2 else { return }
            if size == 0 {
                ended = true
                raw.removeAll()
                return
            }
            body.append(contentsOf: raw[dataStart..<dataStart + size])
            raw.removeSubrange(..<(dataStart + size + 2))
        }
    }
}
