/// The encodings a thumbnail is sent in.
public enum ThumbnailFormat: String, Sendable, Hashable, CaseIterable {
    case webp
    case jpeg
    case avif

    /// The `Content-Type` of the encoded bytes.
    public var contentType: String {
        switch self {
        case .webp: "image/webp"
        case .jpeg: "image/jpeg"
        case .avif: "image/avif"
        }
    }
}
