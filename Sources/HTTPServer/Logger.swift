import Foundation

/// Writes access-log lines to stdout and diagnostics to stderr, one `write` per line so lines
/// from different server threads never interleave.
public struct Logger: Sendable {
    /// Whether per-request access lines are written.
    public var accessLog: Bool
    /// Whether informational lines (startup, shutdown) are written.
    public var info: Bool

    /// Creates a logger; `quiet` turns off access and info lines but never errors.
    public init(quiet: Bool = false) {
        accessLog = !quiet
        info = !quiet
    }

    /// One access line: method, path, status, body bytes, duration.
    public func access(method: String, path: String, status: Int, bytes: Int, seconds: Double) {
        guard accessLog else { return }
        let millis = (seconds * 1000 * 100).rounded() / 100
        Logger.write(
            "\(Logger.printable(method)) \(Logger.printable(path)) \(status) \(bytes)B \(millis)ms\n", to: 1)
    }

    /// An informational line on stdout (flushed immediately, scripts wait for it).
    public func notice(_ message: String) {
        guard info else { return }
        Logger.write(message + "\n", to: 1)
    }

    /// A line that always goes out, to stdout, regardless of `quiet`: the startup address.
    public func always(_ message: String) {
        Logger.write(message + "\n", to: 1)
    }

    /// An error line on stderr; never silenced.
    public func error(_ message: String) {
        Logger.write("error: " + message + "\n", to: 2)
    }

    /// A warning line on stderr; never silenced.
    public func warning(_ message: String) {
        Logger.write("warning: " + message + "\n", to: 2)
    }

    /// Escapes control characters so a hostile path cannot forge or break log lines.
    static func printable(_ text: String) -> String {
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

    private static func write(_ line: String, to descriptor: Int32) {
        var line = line
        line.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(
                    descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 {
                    if written < 0 && errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
