import HTTPServer

/// The one-second windows in which ``StaticFiles`` trusts a file it checked: as a version, it
/// lets the server store a static response (``Response/reusable(while:isAt:)``) for the rest of
/// the window its file was checked in, so a changed file is still seen within a second.
struct RecheckWindow: VersionedContent {
    /// A fixed instant the windows count from (the first use).
    private static let origin = ContinuousClock.now

    /// The window `instant` falls in.
    static func window(of instant: ContinuousClock.Instant) -> Int {
        Int((instant - origin).components.seconds)
    }

    /// The window now.
    var currentVersion: Int { Self.window(of: .now) }
}
