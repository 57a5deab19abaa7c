import Foundation

/// Writes access-log lines to stdout and diagnostics to stderr, one `write` per line so lines
/// from different server threads never interleave; as text or as one JSON object per line.
public struct Logger: Sendable {
    /// Whether per-request access lines are written.
    public var accessLog: Bool
    /// Whether informational lines (startup, shutdown) are written.
    public var info: Bool
    /// Text or JSON lines.
    public var format: LogFormat

    /// Creates a logger; `quiet` turns off access and info lines but never errors.
    public init(quiet: Bool = false, format: LogFormat = .text) {
        accessLog = !quiet
        info = !quiet
        self.format = format
    }

    /// One access line: method, path, status, body bytes, duration, and when known the peer
    /// address and the request id. `peer` is only worked out for JSON lines (the text line has
    /// none).
    public func access(
        method: String, path: String, status: Int, bytes: Int, seconds: Double,
        peer: @autoclosure () -> String? = nil, requestID: String? = nil
    ) {
        guard accessLog else { return }
        let hundredths = (seconds * 1000 * 100).rounded()
        switch format {
        case .text:
            Logger.writeAccessText(
                method: method, path: path, status: status, bytes: bytes, hundredths: hundredths,
                requestID: requestID)
        case .json:
            let millis = hundredths / 100
            var line = "{\"time\":\"\(LogTime.now())\",\"level\":\"info\",\"method\":"
            Logger.appendJSON(method, to: &line)
            line += ",\"path\":"
            Logger.appendJSON(path, to: &line)
            line += ",\"status\":\(status),\"bytes\":\(bytes),\"duration_ms\":\(millis),\"peer\":"
            Logger.appendJSON(peer(), to: &line)
            line += ",\"request_id\":"
            Logger.appendJSON(requestID, to: &line)
            Logger.write(line + "}\n", to: 1)
        }
    }

    /// The text access line, `GET /api/items 200 2345B 0.12ms id=…`, formatted into a buffer on
    /// the stack and written with one call: it runs for every request, and string
    /// interpolation with a `Double` cost several allocations and a float-to-text conversion.
    /// The same text as interpolating `hundredths / 100` (the shortest form of a number with
    /// at most two decimals), with method and path escaped as ``printable(_:)`` does.
    private static func writeAccessText(
        method: String, path: String, status: Int, bytes: Int, hundredths: Double, requestID: String?
    ) {
        // Escaping at most triples a byte; the numbers and the id need under 128 bytes more.
        let capacity = 3 * (method.utf8.count + path.utf8.count) + (requestID?.utf8.count ?? 0) + 128
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var line = LineBuffer(buffer)
            line.appendPrintable(method)
            line.append(32)
            line.appendPrintable(path)
            line.append(32)
            line.append(decimal: status)
            line.append(32)
            line.append(decimal: bytes)
            line.append(66)  // B
            line.append(32)
            line.appendMillis(hundredths: hundredths)
            line.append(109)  // m
            line.append(115)  // s
            if let requestID {
                line.append(32)
                line.append(105)  // i
                line.append(100)  // d
                line.append(61)  // =
                line.append(requestID)
            }
            line.append(10)
            write(UnsafeBufferPointer(rebasing: buffer[..<line.count]), to: 1)
        }
    }

    /// An informational line on stdout (flushed immediately, scripts wait for it).
    public func notice(_ message: String) {
        guard info else { return }
        line(message, level: "info", to: 1)
    }

    /// A line that always goes out, to stdout, regardless of `quiet`: the startup address.
    public func always(_ message: String) {
        line(message, level: "info", to: 1)
    }

    /// An error line on stderr; never silenced.
    public func error(_ message: String, requestID: String? = nil) {
        line(message, level: "error", to: 2, requestID: requestID)
    }

    /// A warning line on stderr; never silenced.
    public func warning(_ message: String, requestID: String? = nil) {
        line(message, level: "warning", to: 2, requestID: requestID)
    }

    private func line(_ message: String, level: String, to descriptor: Int32, requestID: String? = nil) {
        switch format {
        case .text:
            let prefix = level == "info" ? "" : level + ": "
            let suffix = requestID.map { " (request \($0))" } ?? ""
            Logger.write(prefix + message + suffix + "\n", to: descriptor)
        case .json:
            var out = "{\"time\":\"\(LogTime.now())\",\"level\":\"\(level)\",\"message\":"
            // One object per line: a message's own line breaks are escaped by the encoder.
            Logger.appendJSON(message, to: &out)
            if let requestID {
                out += ",\"request_id\":"
                Logger.appendJSON(requestID, to: &out)
            }
            Logger.write(out + "}\n", to: descriptor)
        }
    }

    /// Escapes control characters so a hostile path cannot forge or break log lines.
    package static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == " " }) else {
            return text
        }
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F || scalar == " " {
                out += "%" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 2)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A JSON string literal (or `null`): quotes, backslashes and every control character escaped.
    static func appendJSON(_ text: String?, to out: inout String) {
        guard let text else {
            out += "null"
            return
        }
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\u00" + String(scalar.value, radix: 16).leftPadded(to: 2)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    private static func write(_ line: String, to descriptor: Int32) {
        var line = line
        line.withUTF8 { write($0, to: descriptor) }
    }

    private static func write(_ buffer: UnsafeBufferPointer<UInt8>, to descriptor: Int32) {
        var offset = 0
        while offset < buffer.count {
            let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written <= 0 {
                if written < 0 && errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
