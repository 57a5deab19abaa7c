/// A place in the feed's history: a version within an epoch (``FeedSnapshot/epoch``).
///
/// Version numbers are compared only within one epoch. When Redis lost the feed and it was
/// seeded again, the new epoch may reuse numbers the old one had used for other items, so a
/// position from another epoch says nothing about which items a client has: it gets everything.
public struct FeedPosition: Sendable, Hashable {
    /// Microseconds since 1970 when the version sequence began.
    public var epoch: Int
    /// The version within that epoch.
    public var version: Int

    /// Creates a position.
    public init(epoch: Int, version: Int) {
        self.epoch = epoch
        self.version = version
    }

    /// The epoch as it appears in `ETag`s and event ids: base 36, a dozen characters at most.
    public var tag: String { Self.tag(epoch) }

    /// `tag` for an epoch number.
    public static func tag(_ epoch: Int) -> String { String(epoch, radix: 36) }

    /// The `id:` of the event for this position, `<tag>-<version>` (what `Last-Event-ID` echoes).
    public var eventID: String { "\(tag)-\(version)" }

    /// Parses an event id, `<tag>-<version>`; nil for anything else.
    public init?(eventID text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].count <= 13,
            let epoch = Int(parts[0], radix: 36), epoch >= 0,
            parts[1].allSatisfy(\.isASCII), let version = Int(parts[1]), version >= 0
        else { return nil }
        self.init(epoch: epoch, version: version)
    }

    /// Whether this position comes after `other`: a newer epoch, or a higher version in the same.
    public func isAfter(_ other: FeedPosition) -> Bool {
        epoch == other.epoch ? version > other.version : epoch > other.epoch
    }
}
