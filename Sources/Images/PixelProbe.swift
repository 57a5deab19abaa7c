import CVips

/// Reads single pixels of encoded images: how tests see what a thumbnail shows (its
/// orientation, its first frame) without a second image library.
public enum PixelProbe {
    /// The first band's value (0–255 for 8-bit images) at (`x`, `y`) of `encoded`, or nil when
    /// it cannot be decoded or the point is outside.
    public static func value(of encoded: [UInt8], x: Int, y: Int) -> Double? {
        guard ImageLibrary.started else { return nil }
        var value = 0.0
        let status = encoded.withUnsafeBytes { bytes in
            pullrefresh_vips_point(bytes.baseAddress, bytes.count, Int32(x), Int32(y), &value)
        }
        if status != 0 { vips_error_clear() }
        return status == 0 ? value : nil
    }
}
