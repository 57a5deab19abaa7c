import CVips

/// Original image bytes → a small square thumbnail, with libvips.
///
/// - The header is read first and anything over ``maxPixels`` is refused before a pixel is
///   decoded (a 60,000 × 60,000 PNG header costs well under a millisecond, not seconds).
/// - `vips_thumbnail_buffer` shrinks while decoding (JPEG's DCT scaling, WebP's scaled load), so
///   a 4000 × 3000 photo is never held at full size; it never enlarges (`VIPS_SIZE_DOWN`).
/// - The crop is the centre of the picture, to the slot's square: predictable, and costs
///   nothing more than the resize ("attention" crop reads the whole image to choose, and feed
///   pictures are mostly composed around their middle).
/// - EXIF orientation is applied; EXIF, XMP, IPTC and ICC data are dropped (from WebP after the
///   save: ``WebPMetadata``); animations give their first frame. Pixels are not colour-managed:
///   libvips 8.14.1's ICC transform overflows the heap on a crafted GIF found by fuzzing (see
///   `Sources/CVips/shim.h`), so a wide-gamut photo shows slightly less saturated than its
///   original.
/// - Truncated or corrupt input is an error (`fail_on=truncated`), not a grey picture.
///
/// Calls block on CPU for a few to tens of milliseconds: run them off Swift's cooperative pool.
public struct Thumbnailer: Sendable {
    /// Originals with more pixels than this (50 megapixels) are refused from their header.
    public static let maxPixels = 50_000_000

    /// JPEG and WebP quality: thumbnails are viewed small, where 75 shows no loss.
    public var quality: Int
    /// AVIF (AV1) encoder effort, 0–9: 2 keeps a 160 px thumbnail at a few milliseconds.
    public var avifEffort: Int

    /// Creates a thumbnailer.
    public init(quality: Int = 75, avifEffort: Int = 2) {
        self.quality = quality
        self.avifEffort = avifEffort
    }

    /// Starts libvips now (it otherwise starts on first use): call once at startup, before
    /// other threads run, since starting sets an environment variable for a moment. Returns
    /// whether it started and whether AVIF/HEIF support (libvips' HEIF module) loaded.
    @discardableResult public static func start() -> (started: Bool, heif: Bool) {
        (ImageLibrary.started, ImageLibrary.hasHEIF)
    }

    /// The thumbnail of `original`, fitting `side` × `side` pixels after a centre crop.
    public func thumbnail(of original: [UInt8], side: Int, format: ThumbnailFormat) throws(ImageError)
        -> Thumbnail
    {
        // The pipeline is lazy: libvips reads `original` during the save, so every call that
        // touches the image runs while this buffer is pinned.
        let result: Result<Thumbnail, ImageError> = original.withUnsafeBytes { bytes in
            Result { () throws(ImageError) in try make(bytes, side: side, format: format) }
        }
        // libvips keeps pixel buffers per calling thread for reuse; callers here are pool
        // threads that may never call again, so each call gives its buffers back.
        vips_thread_shutdown()
        return try result.get()
    }

    private func make(_ bytes: UnsafeRawBufferPointer, side: Int, format: ThumbnailFormat) throws(ImageError)
        -> Thumbnail
    {
        let header = try ImageHeader.read(bytes)
        guard header.width * header.height <= Self.maxPixels, header.width > 0, header.height > 0 else {
            throw .tooManyPixels(width: header.width, height: header.height)
        }
        var resized: UnsafeMutablePointer<VipsImage>?
        guard
            pullrefresh_vips_thumbnail(
                bytes.baseAddress, bytes.count, Int32(side), Int32(side), VIPS_INTERESTING_CENTRE, &resized)
                == 0,
            let resized
        else { throw .undecodable(ImageLibrary.takeError()) }
        defer { g_object_unref(resized) }
        guard let stripped = pullrefresh_vips_strip_copy(resized) else {
            throw .undecodable(ImageLibrary.takeError())
        }
        defer { g_object_unref(stripped) }
        var output: UnsafeMutableRawPointer?
        var length = 0
        let status: Int32
        switch format {
        case .webp: status = pullrefresh_vips_webp(stripped, Int32(quality), &output, &length)
        case .jpeg: status = pullrefresh_vips_jpeg(stripped, Int32(quality), &output, &length)
        case .avif:
            status = pullrefresh_vips_avif(stripped, Int32(quality), Int32(avifEffort), &output, &length)
        }
        defer { g_free(output) }
        guard status == 0, let output else {
            // The decode runs inside the save, so a truncated original fails here.
            throw .undecodable(ImageLibrary.takeError())
        }
        var encoded = [UInt8](UnsafeRawBufferPointer(start: output, count: length))
        // webpsave adds an EXIF chunk whatever "strip" says (see ``WebPMetadata``).
        if format == .webp { encoded = WebPMetadata.removing(from: encoded) }
        return Thumbnail(
            bytes: encoded, format: format, width: Int(vips_image_get_width(stripped)),
            height: Int(vips_image_get_height(stripped)))
    }
}
