import Foundation
import HTTPServer
import Synchronization

/// `GET /api/events`: one `text/event-stream` per open page, told of every new version.
///
/// One listener on the store's ``FeedBackend/publications()`` (fed by this process's reloads or
/// by Redis pub/sub) turns each new version into one event, encoded once and written to every
/// open stream. A heartbeat comment every ``heartbeat`` keeps proxies from closing idle streams
/// and is how a departed client is noticed (its write fails and the server frees the stream).
/// There is no replay buffer: a client that reconnects with an older `Last-Event-ID` (or
/// `?since=`) gets one event at once, counting everything added since its version.
public final class EventHub: Sendable {
    /// How long a browser waits before reconnecting, sent as `retry:` (milliseconds).
    public static let retryMillis = 3000

    private struct State {
        var streams: [ObjectIdentifier: ResponseStream] = [:]
        /// The newest version an event was sent for.
        var announced: Int
    }

    private let store: any FeedBackend
    /// Time between heartbeat comments.
    public let heartbeat: Duration
    private let state: Mutex<State>
    private let tasks = Mutex<[Task<Void, Never>]>([])

    /// Creates the hub and starts listening to `store` and sending heartbeats.
    public init(store: any FeedBackend, heartbeat: Duration = .seconds(15)) {
        self.store = store
        self.heartbeat = heartbeat
        state = Mutex(State(announced: store.currentVersion))
        let publications = store.publications()
        let listener = Task { [weak self] in
            for await snapshot in publications {
                guard let self else { return }
                await self.announce(snapshot)
            }
        }
        let beat = Task { [weak self, heartbeat] in
            while !Task.isCancelled {
                try? await Task.sleep(for: heartbeat)
                guard let self else { return }
                self.beat()
            }
        }
        tasks.withLock { $0 = [listener, beat] }
    }

    deinit {
        for task in tasks.withLock({ $0 }) { task.cancel() }
    }

    /// Streams open now.
    public var openStreams: Int { state.withLock { $0.streams.count } }

    /// The response for `GET /api/events`: the `retry:` hint, an event at once when the client
    /// says (`Last-Event-ID` or `?since=`) it knows an older version, then every new version.
    public func open(_ request: Request) throws(HTTPError) -> Response {
        let known = try Self.knownVersion(request)
        var initial = Array("retry: \(Self.retryMillis)\n\n".utf8)
        let snapshot = store.current
        if let known, known < snapshot.version {
            initial += Self.event(snapshot, since: known)
        }
        let stream = ResponseStream(initial: initial)
        let id = ObjectIdentifier(stream)
        state.withLock { $0.streams[id] = stream }
        stream.onClose { [weak self] in
            self?.state.withLock { _ = $0.streams.removeValue(forKey: id) }
        }
        return .streaming(
            stream,
            headers: [
                "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store",
                "X-Accel-Buffering": "no",
            ])
    }

    /// The version the client already knows: `Last-Event-ID` (sent by the browser when it
    /// reconnects by itself), else `?since=` (a page opening a new stream says what it shows).
    static func knownVersion(_ request: Request) throws(HTTPError) -> Int? {
        if let header = request.headers["Last-Event-ID"], let version = Int(header), version >= 0 {
            return version
        }
        guard let raw = request.queryValue("since") else { return nil }
        guard let version = Int(raw), (0...ItemsQuery.maxVersion).contains(version) else {
            throw HTTPError.badRequest(
                "Query parameter 'since' must be a feed version (an integer of 0 or more).",
                code: "invalid_since")
        }
        return version
    }

    /// One `version` event: `added` counts the items newer than `since`.
    static func event(_ snapshot: FeedSnapshot, since: Int) -> [UInt8] {
        let added = snapshot.entries.lazy.filter { $0.addedIn > since }.count
        var writer = JSONWriter(capacity: 96)
        writer.raw("{\"version\":")
        writer.number(snapshot.version)
        writer.raw(",\"updatedAt\":")
        writer.string(Timestamp.iso(snapshot.updatedAt))
        writer.raw(",\"added\":")
        writer.number(added)
        writer.raw("}")
        return Array("id: \(snapshot.version)\nevent: version\ndata: ".utf8) + writer.bytes
            + Array("\n\n".utf8)
    }

    /// Streams woken at once during a fan-out, before a pause lets the server's threads answer
    /// other requests: thousands of streams resumed together would hold every thread for the
    /// whole fan-out (see bench/EVENTS.md).
    static let fanOutBatch = 64
    static let fanOutPause: Duration = .milliseconds(1)

    /// A newer version: one event, encoded once, written to every stream, a batch at a time.
    func announce(_ snapshot: FeedSnapshot) async {
        let (streams, since) = state.withLock { state -> ([ResponseStream], Int?) in
            guard snapshot.version > state.announced else { return ([], nil) }
            defer { state.announced = snapshot.version }
            return (Array(state.streams.values), state.announced)
        }
        guard let since else { return }
        let bytes = Self.event(snapshot, since: since)
        for (index, stream) in streams.enumerated() {
            stream.write(bytes)
            if index % Self.fanOutBatch == Self.fanOutBatch - 1 {
                try? await Task.sleep(for: Self.fanOutPause)
            }
        }
    }

    private static let ping = Array(": ping\n\n".utf8)

    /// A comment to every stream: keeps them alive and finds the clients that left.
    func beat() {
        let streams = state.withLock { Array($0.streams.values) }
        for stream in streams { stream.write(Self.ping) }
    }
}
