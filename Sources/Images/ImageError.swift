/// Why an original could not become a thumbnail.
public enum ImageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not one of the accepted formats (JPEG, PNG, WebP, GIF, HEIF/AVIF); SVG is one of these.
    case unsupportedFormat
    /// The header announces more pixels than ``Thumbnailer/maxPixels``: refused before decoding.
    case tooManyPixels(width: Int, height: Int)
    /// The header or the pixels could not be decoded (truncated, corrupt).
    case undecodable(String)
    /// The thumbnail could not be encoded.
    case encodingFailed(String)
    /// libvips did not start.
    case unavailable

    /// A short, stable label for metrics: `unsupported`, `too_large`, `undecodable`, `encode`,
    /// `unavailable`.
    public var reason: String {
        switch self {
        case .unsupportedFormat: "unsupported"
        case .tooManyPixels: "too_large"
        case .undecodable: "undecodable"
        case .encodingFailed: "encode"
        case .unavailable: "unavailable"
        }
    }

    /// Words for the log.
    public var description: String {
        switch self {
        case .unsupportedFormat: "not a JPEG, PNG, WebP, GIF or HEIF/AVIF image"
        case .tooManyPixels(let width, let height): "\(width)x\(height) is over the pixel limit"
        case .undecodable(let detail): "could not be decoded: \(detail)"
        case .encodingFailed(let detail): "could not be encoded: \(detail)"
        case .unavailable: "libvips could not start"
        }
    }
}
