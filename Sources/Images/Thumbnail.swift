/// An encoded thumbnail.
public struct Thumbnail: Sendable, Equatable {
    /// The encoded bytes, metadata stripped.
    public var bytes: [UInt8]
    /// Their encoding.
    public var format: ThumbnailFormat
    /// Pixel size of the result (at most the requested box; smaller when the original was).
    public var width: Int
    /// Pixel height of the result.
    public var height: Int

    /// Creates a thumbnail value.
    public init(bytes: [UInt8], format: ThumbnailFormat, width: Int, height: Int) {
        self.bytes = bytes
        self.format = format
        self.width = width
        self.height = height
    }
}
