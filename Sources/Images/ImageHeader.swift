import CVips

/// What an original's header says, read without decoding its pixels.
public struct ImageHeader: Sendable, Equatable {
    /// The accepted decoders, by libvips' loader name.
    public enum Kind: String, Sendable {
        case jpeg, png, webp, gif, heif
    }

    /// The decoder libvips would use.
    public var kind: Kind
    /// Width in pixels (of one frame; before EXIF rotation).
    public var width: Int
    /// Height in pixels; for animations the height of the first frame's page.
    public var height: Int
    /// Frames (1 for a still image).
    public var pages: Int

    /// Reads the header of `bytes`; throws ``ImageError/unsupportedFormat`` for anything but the
    /// accepted formats, ``ImageError/undecodable(_:)`` when the header is broken.
    public static func read(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageHeader {
        guard ImageLibrary.started else { throw .unavailable }
        guard let base = bytes.baseAddress, !bytes.isEmpty else { throw .unsupportedFormat }
        guard let loader = pullrefresh_vips_loader(base, bytes.count),
            let kind = kind(loader: String(cString: loader))
        else {
            vips_error_clear()
            throw .unsupportedFormat
        }
        var width: Int32 = 0
        var height: Int32 = 0
        var pages: Int32 = 0
        guard pullrefresh_vips_header(base, bytes.count, &width, &height, &pages) == 0 else {
            throw .undecodable(ImageLibrary.takeError())
        }
        return ImageHeader(kind: kind, width: Int(width), height: Int(height), pages: max(Int(pages), 1))
    }

    /// `VipsForeignLoadJpegBuffer` → `.jpeg`; loaders outside the allowlist → nil.
    static func kind(loader: String) -> Kind? {
        switch loader {
        case "VipsForeignLoadJpegBuffer": .jpeg
        case "VipsForeignLoadPngBuffer": .png
        case "VipsForeignLoadWebpBuffer": .webp
        case "VipsForeignLoadNsgifBuffer": .gif
        case "VipsForeignLoadHeifBuffer": .heif
        default: nil
        }
    }
}
