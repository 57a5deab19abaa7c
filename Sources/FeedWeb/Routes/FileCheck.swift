import HTTPServer

/// When ``StaticFiles`` last checked a file on disk, as the version of its stored responses
/// (``Response/reusable(while:isAt:)``): version 0 while the check is less than a second old,
/// 1 after. The server may then send a static response without routing for as long as the app
/// itself would trust that check, so a changed file is still seen within a second.
struct FileCheck: VersionedContent {
    /// How long a check is trusted.
    static let trust = Duration.seconds(1)
    /// The version of a response made under a check still trusted.
    static let trusted = 0

    let checked: ContinuousClock.Instant

    var currentVersion: Int { ContinuousClock.now - checked < Self.trust ? Self.trusted : 1 }
}
