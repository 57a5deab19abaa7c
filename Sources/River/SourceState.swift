import Feed
public import FeedParsing
public import Foundation

/// Everything a river remembers about one source between fetches: validators, how the last
/// fetches went, and when it may and should be fetched again. A value, kept by the river; in a
/// cluster encoded as JSON and kept by a ``Feed/SourceStateStore`` (a Redis hash).
public struct SourceState: Sendable, Equatable, Codable {
    /// `ETag` and `Last-Modified` of the last `200`, sent back conditionally.
    public var etag: String?
    /// See ``etag``.
    public var lastModified: String?
    /// When a fetch last succeeded.
    public var lastSuccess: Date?
    /// Why the last fetch failed, while failing.
    public var lastError: String?
    /// When the current run of failures began.
    public var failingSince: Date?
    /// Failed fetches in a row.
    public var failures = 0
    /// When the schedule fetches it next; nil until the schedule has seen it.
    public var nextFetch: Date?
    /// Until when its last answer is fresh (`max-age`, `Expires`, RSS `<ttl>`): the schedule
    /// never fetches before this; a pull does (conditionally).
    public var freshUntil: Date?
    /// Until when it asked us to wait (`Retry-After` on `429`/`503`): nobody fetches before.
    public var notBefore: Date?
    /// When a fetch last brought an item not seen before.
    public var lastNewItems: Date?
    /// The smoothed gap in seconds between fetches that brought new items.
    public var meanGap: Double?
    /// Title, site and scheduling hints from the last body.
    public var hints = FeedHints()
    /// What the last parse recovered from (``FeedReading/recovered``), nil when it was well-formed.
    public var recovered: String?

    /// A source never fetched.
    public init() {}

    /// The encoding kept by the state store: the JSON `JSONEncoder` would write (keys sorted,
    /// dates as seconds since 2001, absent values left out), written by hand because it is
    /// written after every fetch: `JSONEncoder` made a fifth of a reload's CPU when every
    /// source answered `304`. ``decode(_:)`` reads either.
    public func encoded() -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        var separator: StaticString = "{"
        func key(_ name: StaticString) {
            writer.raw(separator)
            separator = ","
            writer.raw(name)
        }
        func date(_ name: StaticString, _ value: Date?) {
            guard let value else { return }
            key(name)
            writer.number(value.timeIntervalSinceReferenceDate)
        }
        func text(_ name: StaticString, _ value: String?) {
            guard let value else { return }
            key(name)
            writer.string(value)
        }
        text("\"etag\":", etag)
        date("\"failingSince\":", failingSince)
        key("\"failures\":")
        writer.number(failures)
        date("\"freshUntil\":", freshUntil)
        key("\"hints\":")
        hints.write(into: &writer)
        text("\"lastError\":", lastError)
        text("\"lastModified\":", lastModified)
        date("\"lastNewItems\":", lastNewItems)
        date("\"lastSuccess\":", lastSuccess)
        if let meanGap {
            key("\"meanGap\":")
            writer.number(meanGap)
        }
        date("\"nextFetch\":", nextFetch)
        date("\"notBefore\":", notBefore)
        text("\"recovered\":", recovered)
        writer.raw("}")
        return writer.bytes
    }

    /// A stored state, or a fresh one when the bytes are not one (an older encoding, damage).
    public static func decode(_ bytes: [UInt8]?) -> SourceState {
        guard let bytes, let state = try? JSONDecoder().decode(SourceState.self, from: Data(bytes)) else {
            return SourceState()
        }
        return state
    }
}
