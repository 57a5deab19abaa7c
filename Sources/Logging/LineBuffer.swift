/// Bytes of one log line appended into memory the caller allocated (sized for the line), so a
/// per-request line is formatted without building strings.
struct LineBuffer {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private(set) var count = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    mutating func append(_ byte: UInt8) {
        buffer[count] = byte
        count += 1
    }

    mutating func append(_ text: String) {
        for byte in text.utf8 { append(byte) }
    }

    /// `text` with control characters, DEL and spaces as `%XX`, as ``Logger/printable(_:)``
    /// writes them (byte by byte: those are all single UTF-8 bytes; other bytes pass through).
    mutating func appendPrintable(_ text: String) {
        for byte in text.utf8 {
            if byte < 0x20 || byte == 0x7F || byte == 0x20 {
                append(37)  // %
                append(Self.hexDigit(byte >> 4))
                append(Self.hexDigit(byte & 0xF))
            } else {
                append(byte)
            }
        }
    }

    /// A whole number in decimal, with a `-` when negative.
    mutating func append(decimal value: Int) {
        if value < 0 { append(45) }
        var rest = value.magnitude
        var digits = 1
        var scale: UInt = 1
        while rest / scale >= 10 {
            scale *= 10
            digits += 1
        }
        for _ in 0..<digits {
            append(UInt8(48 + rest / scale))
            rest %= scale
            scale /= 10
        }
    }

    /// Milliseconds from a whole number of hundredths, as Swift prints such a `Double`:
    /// `12.0`, `0.5`, `0.05`, `3.14`.
    mutating func appendMillis(hundredths: Double) {
        // Beyond this, Swift's own text would switch to an exponent; durations never get there.
        guard hundredths >= 0, hundredths < 1e15 else {
            append("\(hundredths / 100)")
            return
        }
        let whole = Int(hundredths)
        append(decimal: whole / 100)
        append(46)  // .
        let fraction = whole % 100
        append(UInt8(48 + fraction / 10))
        if fraction % 10 != 0 { append(UInt8(48 + fraction % 10)) }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? 48 + value : 55 + value
    }
}
