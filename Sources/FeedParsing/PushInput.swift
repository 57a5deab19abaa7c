import Foundation

/// How a libxml2 push parser is fed (``XMLStreamReader``, ``PageLinkScanner``): 64 KiB at a
/// time, so a callback that stops the parser (a bound) stops the reading within one chunk.
enum PushInput {
    /// Bytes per chunk.
    static let chunkBytes = 64 * 1024

    /// Hands `data` to `parse` (bytes, count, 0) chunk by chunk while `proceed()` holds, then the
    /// end (nil, 0, 1) if it still does.
    static func push(
        _ data: Data, while proceed: () -> Bool,
        to parse: (UnsafePointer<CChar>?, Int32, Int32) -> Void
    ) {
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: CChar.self)
            var offset = 0
            while offset < bytes.count, proceed() {
                let count = min(chunkBytes, bytes.count - offset)
                parse(bytes.baseAddress! + offset, Int32(count), 0)
                offset += count
            }
            if proceed() { parse(nil, 0, 1) }
        }
    }
}
