import CVips

/// libvips, started once per process with the settings a thumbnail server wants: one thread per
/// caller (parallelism comes from callers), no operation cache (each original is resized once,
/// so a cache would only pin memory), and only the JPEG, PNG, WebP, GIF and HEIF/AVIF loaders
/// allowed, every other one (SVG, PDF, TIFF, ImageMagick, …) blocked.
enum ImageLibrary {
    /// Whether libvips started; read before every call into it.
    static var started: Bool { startup.started }

    /// Whether the HEIF module (AVIF/HEIF in and out) loaded.
    static var hasHEIF: Bool { startup.heif }

    private static let startup: (started: Bool, heif: Bool) = {
        var heif: Int32 = 0
        guard pullrefresh_vips_init("pullrefresh", &heif) == 0 else { return (false, false) }
        vips_concurrency_set(1)
        vips_cache_set_max(0)
        vips_cache_set_max_mem(0)
        vips_cache_set_max_files(0)
        pullrefresh_vips_allow_only_photo_loaders()
        pullrefresh_vips_drop_warnings()
        return (true, heif != 0)
    }()

    /// libvips' last error text, cleared. The buffer is process-wide, so under concurrency it
    /// may hold another thread's message: a hint for the log, never a decision.
    static func takeError() -> String {
        let text = vips_error_buffer().map { String(cString: $0) } ?? ""
        vips_error_clear()
        let trimmed = text.split(separator: "\n").first.map(String.init) ?? ""
        return trimmed.isEmpty ? "no detail from libvips" : trimmed
    }
}
