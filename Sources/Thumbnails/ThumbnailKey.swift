import Images

/// What a thumbnail is made from: the original's URL (so a changed picture is a new key), the
/// width and the encoding.
struct ThumbnailKey: Hashable, Sendable {
    var imageURL: String
    var width: Int
    var format: ThumbnailFormat
}
