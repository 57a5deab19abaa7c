/// Where an item's picture sits on the page, and the thumbnail widths `GET /img/{id}?w=` makes.
///
/// The widths are a small fixed set, so caches stay small and nobody can ask for 10,000 px.
/// Each slot is a square of `side` CSS pixels whose `srcset` offers its 1×, 2× and 3×
/// (rounded up to the next width of the set): the list's 80 px slot takes 96/160/240, the
/// grid's 96 px slot (a third of a 390 px screen, less the gaps) 96/240/320.
public struct ThumbnailSlot: Sendable, Equatable {
    /// Every width (= height: thumbnails are square) the thumbnail route accepts.
    public static let widths = [96, 160, 240, 320, 480]

    /// The list layout's slot: 80 × 80 CSS px beside the text.
    public static let list = ThumbnailSlot(side: 80)
    /// The grid layout's slot: 96 × 96 CSS px above the text (narrower cards shrink it,
    /// keeping it square).
    public static let grid = ThumbnailSlot(side: 96)

    /// The slot's width and height in CSS pixels.
    public let side: Int

    /// The widths for 1×, 2× and 3× displays.
    public var candidates: [Int] {
        (1...3).map { density in Self.widths.first { $0 >= side * density } ?? Self.widths.last! }
    }

    /// `/img/<id>?w=<width>`, the id percent-encoded (ids may hold any character).
    public static func path(itemID: String, width: Int) -> String {
        "/img/\(percentEncoded(itemID))?w=\(width)"
    }

    /// Every byte outside the URL's unreserved characters as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                encoded.unicodeScalars.append(UnicodeScalar(byte))
            default:
                encoded +=
                    "%" + String(byte >> 4, radix: 16, uppercase: true)
                    + String(byte & 0xf, radix: 16, uppercase: true)
            }
        }
        return encoded
    }
}
