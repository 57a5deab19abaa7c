import EventStreams
public import Feed
import Foundation
public import HTTPServer
import Synchronization

/// `GET /api/events`: one `text/event-stream` per open page, told of every new version.
///
/// One listener on the store's ``FeedBackend/publications()`` (fed by this process's reloads or
/// by Redis pub/sub) turns each new version into one event, encoded once per starting point and
/// written to every open stream. A heartbeat comment every ``heartbeat`` keeps proxies from
/// closing idle streams and is how a silent departed client is noticed (its write fails and the
/// server frees the stream; a client that closes its connection is noticed at once by the server).
/// There is no replay buffer: a client that reconnects with an older `Last-Event-ID` (or
/// `?since=`) gets one event at once, counting everything added since its version.
///
/// What every stream is promised: each version published after the stream opened reaches it,
/// and its event ids only move forward (never one twice, never one lower than the last). A
/// stream is registered and the snapshot it starts from is read under one lock, and each stream
/// remembers the newest position (``FeedPosition``) its client knows; a fan-out writes only to
/// streams behind the version it carries. Ids are `<epoch tag>-<version>`: a client whose
/// position is from an older epoch gets a full catch-up (`added` counts every item).
///
/// A stream of one source of a river (`?source=KEY`, what a filtered page opens) gets the same
/// events, with `added` counting that source's items only: the pill then announces what its tap
/// will find.
public final class EventHub: Sendable {
    /// How long a browser waits before reconnecting, sent as `retry:` (milliseconds).
    public static let retryMillis = 3000

    private struct Listener {
        let stream: ResponseStream
        /// The newest position this stream's client knows: the last event sent on it, or what
        /// the client said it knows when it is ahead of this instance.
        var known: FeedPosition
        /// `?source=` or `?folder=`: the source keys whose items `added` counts (a folder's, as
        /// they were when the stream opened); nil for the whole feed.
        let sourceKeys: Set<String>?
    }

    /// The streams one event goes to: those whose `added` counts from the same version over
    /// the same items.
    private struct Audience: Hashable {
        let since: Int
        let sourceKeys: Set<String>?
    }

    private struct State {
        var listeners: [ObjectIdentifier: Listener] = [:]
    }

    /// What a client says it knows when it opens a stream.
    enum Known: Equatable {
        /// An event id from this server: a version within an epoch.
        case position(FeedPosition)
        /// A bare version (`?since=` from a page): taken to be in the current epoch.
        case version(Int)
    }

    private let store: any FeedBackend
    /// Time between heartbeat comments.
    public let heartbeat: Duration
    private let state = Mutex(State())
    private let tasks = Mutex<[Task<Void, Never>]>([])

    /// Creates the hub and starts listening to `store` and sending heartbeats.
    public init(store: any FeedBackend, heartbeat: Duration = .seconds(15)) {
        self.store = store
        self.heartbeat = heartbeat
        let publications = store.publications()
        let listener = Task(executorPreference: StreamFanOut.executor) { [weak self] in
            for await snapshot in publications {
                guard let self else { return }
                await self.announce(snapshot)
            }
        }
        let beat = Task(executorPreference: StreamFanOut.executor) { [weak self, heartbeat] in
            while !Task.isCancelled {
                try? await Task.sleep(for: heartbeat)
                guard let self else { return }
                await self.beat()
            }
        }
        tasks.withLock { $0 = [listener, beat] }
    }

    deinit {
        for task in tasks.withLock({ $0 }) { task.cancel() }
    }

    /// Streams open now.
    public var openStreams: Int { state.withLock { $0.listeners.count } }

    /// The streams open now, in no particular order.
    var streams: [ResponseStream] { state.withLock { $0.listeners.values.map(\.stream) } }

    /// The response for `GET /api/events`: the `retry:` hint, an event at once when the client
    /// says (`Last-Event-ID` or `?since=`) it knows an older version, then every new version.
    /// With `sourceKeys` (a validated `?source=` or `?folder=`), `added` counts their items.
    public func open(_ request: Request, sourceKeys: Set<String>? = nil) throws(HTTPError) -> Response {
        let known = try Self.known(request)
        // Registering and reading the snapshot under the hub's lock: a fan-out takes its list of
        // streams under the same lock, so it either runs before (and the snapshot read here
        // already has its version) or after (and finds this stream, behind its version).
        let stream = state.withLock { state -> ResponseStream in
            let snapshot = store.current
            let (initial, position) = Self.opening(snapshot, known: known, sourceKeys: sourceKeys)
            let stream = ResponseStream(initial: initial)
            state.listeners[ObjectIdentifier(stream)] = Listener(
                stream: stream, known: position, sourceKeys: sourceKeys)
            return stream
        }
        let id = ObjectIdentifier(stream)
        stream.onClose { [weak self] in
            self?.state.withLock { _ = $0.listeners.removeValue(forKey: id) }
        }
        return .streaming(
            stream,
            headers: [
                "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store",
                "X-Accel-Buffering": "no",
            ])
    }

    /// A new stream's first bytes (the `retry:` hint, and the catch-up event when the client is
    /// behind) and the position its client then knows.
    static func opening(_ snapshot: FeedSnapshot, known: Known?, sourceKeys: Set<String>? = nil)
        -> (bytes: [UInt8], known: FeedPosition)
    {
        let retry = Array("retry: \(retryMillis)\n\n".utf8)
        let current = snapshot.position
        let position: FeedPosition
        switch known {
        case nil: return (retry, current)
        case .version(let version):
            // A bare version above the current one (a page from an earlier run) counts as 0, as
            // `since` does on every route.
            let version = version > current.version ? 0 : version
            position = FeedPosition(epoch: current.epoch, version: version)
        case .position(let told): position = told
        }
        guard current.isAfter(position) else { return (retry, position) }
        return (
            retry + event(snapshot, since: since(position, for: snapshot), sourceKeys: sourceKeys), current
        )
    }

    /// What `added` counts from for a client at `position`: everything when it is from another epoch.
    static func since(_ position: FeedPosition, for snapshot: FeedSnapshot) -> Int {
        position.epoch == snapshot.epoch ? position.version : 0
    }

    /// What the client already knows: `Last-Event-ID` (sent by the browser when it reconnects
    /// by itself; an id of this server, or a bare version from an older one), else `?since=`
    /// (a page opening a new stream says what it shows: a version, or an event id).
    static func known(_ request: Request) throws(HTTPError) -> Known? {
        if let header = request.headers["Last-Event-ID"] {
            if let position = FeedPosition(eventID: header) { return .position(position) }
            if let version = Int(header), version >= 0 { return .version(version) }
        }
        guard let raw = request.queryValue("since") else { return nil }
        guard let (epoch, version) = ItemsQuery.sincePosition(raw) else {
            throw HTTPError.badRequest(
                "Query parameter 'since' must be a feed version (an integer of 0 or more) or an event id.",
                code: "invalid_since")
        }
        guard let epoch else { return .version(version) }
        return .position(FeedPosition(epoch: epoch, version: version))
    }

    /// One `version` event: `added` counts the items newer than `since` (of the sources with
    /// `sourceKeys` only, when given).
    static func event(_ snapshot: FeedSnapshot, since: Int, sourceKeys: Set<String>? = nil) -> [UInt8] {
        let added = snapshot.entries.lazy.filter { entry in
            guard entry.addedIn > since else { return false }
            guard let sourceKeys else { return true }
            return RiverItemID.key(of: entry.item.id).map { sourceKeys.contains(String($0)) } ?? false
        }.count
        var writer = JSONWriter(capacity: 112)
        writer.openSnapshot(snapshot)
        writer.raw(",\"added\":")
        writer.number(added)
        writer.raw("}")
        return Array("id: \(snapshot.position.eventID)\nevent: version\ndata: ".utf8) + writer.bytes
            + Array("\n\n".utf8)
    }

    /// A newer version: one event per starting point (nearly always one), encoded once, written
    /// to every stream behind it, a group at a time. Streams at or past it are left alone.
    func announce(_ snapshot: FeedSnapshot) async {
        let position = snapshot.position
        let behind = state.withLock { state -> [Audience: [ResponseStream]] in
            var byAudience: [Audience: [ResponseStream]] = [:]
            for (id, listener) in state.listeners where position.isAfter(listener.known) {
                let audience = Audience(
                    since: Self.since(listener.known, for: snapshot), sourceKeys: listener.sourceKeys)
                byAudience[audience, default: []].append(listener.stream)
                state.listeners[id]?.known = position
            }
            return byAudience
        }
        // The whole feed's streams first (nearly all of them), the newest starting point first.
        let ordered = behind.sorted { left, right in
            let leftWhole = left.key.sourceKeys == nil
            let rightWhole = right.key.sourceKeys == nil
            if leftWhole != rightWhole { return leftWhole }
            return left.key.since > right.key.since
        }
        for (audience, streams) in ordered {
            await StreamFanOut.write(
                Self.event(snapshot, since: audience.since, sourceKeys: audience.sourceKeys), to: streams)
        }
    }

    private static let ping = Array(": ping\n\n".utf8)

    /// A comment to every stream, paced like an event: keeps them alive and finds the clients
    /// that left.
    func beat() async {
        await StreamFanOut.write(Self.ping, to: streams)
    }
}
