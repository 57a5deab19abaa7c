import Feed
import FeedWeb
import Foundation
import HTTPClient
import HTTPServer
import Images
import Logging
import Metrics
import TestSupport
import Testing
import Thumbnails

/// `GET /img/{id}?w=` on a real port, with items whose pictures live on the loopback image host.
@Suite("Thumbnails on a real port", .serialized) struct ThumbnailRouteTests {
    /// A store, the thumbnail route (with the feed's own routes, for the error pages) and a server.
    final class Harness: Sendable {
        let server: Server
        let service: ThumbnailService
        let metrics: MetricsRegistry
        let host: ImageHost

        /// `images` maps item ids to image-host paths (nil: an item without an image);
        /// `storedResponses` as the server's option (0: every request reaches the service).
        convenience init(
            _ images: [String: String?], policy: AddressPolicy = .any, cacheBytes: Int = 32 << 20,
            storedResponses: Int = 64
        ) async throws {
            let host = try await ImageHost.running()
            let items = images.enumerated().map { index, pair in
                FeedItem(
                    id: pair.key, title: "item \(index)", body: "",
                    createdAt: Date(timeIntervalSince1970: Double(index)),
                    image: pair.value.map { host.url($0).absoluteString })
            }
            let store = FeedStore(
                initial: items, source: Unchanging(items: items), delay: .zero, maxItems: 100)
            try self.init(
                store: store, host: host, policy: policy, cacheBytes: cacheBytes,
                storedResponses: storedResponses)
        }

        /// The route over `store`, whose items' pictures live on `host`.
        init(
            store: any FeedBackend, host: ImageHost, policy: AddressPolicy = .any, cacheBytes: Int = 32 << 20,
            storedResponses: Int = 64
        ) throws {
            self.host = host
            metrics = MetricsRegistry()
            service = ThumbnailService(
                store: store,
                fetcher: ImageFetcher(
                    limits: FetchLimits(connectTimeout: 2, totalTimeout: 5), policy: policy),
                widths: ThumbnailSlot.widths, cacheBytes: cacheBytes, logger: Logger(quiet: true),
                metrics: metrics)
            var router = Router(logger: Logger(quiet: true))
            service.register(on: &router)
            var options = ServerOptions()
            options.port = 0
            options.threads = 2
            options.storedResponses = storedResponses
            server = try Server(
                router: router, options: options, logger: Logger(quiet: true), metrics: metrics,
                metricPrefix: "pullrefresh")
        }

        func get(_ target: String, accept: String? = "image/avif,image/webp,*/*", headers: String = "")
            async throws -> RawResponse
        {
            let acceptLine = accept.map { "Accept: \($0)\r\n" } ?? ""
            return try await RawConnection.exchange(
                port: server.port, ["GET \(target) HTTP/1.1\r\nHost: x\r\n\(acceptLine)\(headers)\r\n"])[0]
        }
    }

    struct Unchanging: FeedSource {
        let items: [FeedItem]
        func fetch(current: [FeedItem]) async throws -> [FeedItem] { items }
    }

    @Test("every width, WebP or JPEG by Accept, immutable, ETag and 304")
    func widthsAndFormats() async throws {
        let harness = try await Harness(["a": "/f/photo.jpg?t=widths", "tag:x/y z": "/f/photo.png?t=widths"])
        for width in ThumbnailSlot.widths {
            for (accept, type) in [
                ("image/webp,*/*", "image/webp"), ("image/png,image/*;q=0.8", "image/jpeg"),
            ] {
                let response = try await harness.get(
                    ThumbnailSlot.path(itemID: "a", width: width), accept: accept)
                #expect(response.status == 200)
                #expect(response.header("Content-Type") == type)
                #expect(response.header("Cache-Control") == "public, max-age=604800, immutable")
                #expect(response.header("Vary") == "Accept")
                let header = try response.body.withUnsafeBytes { try ImageHeader.read($0) }
                #expect(header.width == width && header.height == width)
                let etag = try #require(response.header("ETag"))
                let again = try await harness.get(
                    ThumbnailSlot.path(itemID: "a", width: width), accept: accept,
                    headers: "If-None-Match: \(etag)\r\n")
                #expect(again.status == 304 && again.body.isEmpty)
            }
        }
        // An id with reserved characters, percent-encoded in the path.
        let odd = try await harness.get(ThumbnailSlot.path(itemID: "tag:x/y z", width: 96))
        #expect(odd.status == 200)
        // Made once per (width, format): ten fetches, none for the 304s.
        #expect(try await harness.host.requests(for: "/f/photo.jpg?t=widths") == 10)
        await harness.server.shutdown()
    }

    @Test("bad width 400, unknown item or no image 404")
    func refusals() async throws {
        let harness = try await Harness(["a": "/f/photo.jpg", "plain": nil])
        for target in ["/img/a?w=100", "/img/a?w=10000", "/img/a", "/img/a?w=abc", "/img/a?w=-96"] {
            #expect(try await harness.get(target).status == 400, "\(target)")
        }
        #expect(try await harness.get("/img/nope?w=160").status == 404)
        #expect(try await harness.get("/img/plain?w=160").status == 404)
        #expect(try await harness.get("/img/?w=160").status == 404)
        await harness.server.shutdown()
    }

    @Test("SVG, HTML as an image, over 8 MiB, a bomb, a truncated JPEG: 502 for that image only")
    func badOriginals() async throws {
        let harness = try await Harness([
            "svg": "/f/drawing.svg", "html": "/as/image_jpeg/page.html", "big": "/f/oversized.jpg",
            "bomb": "/f/bomb.png", "cut": "/f/truncated.jpg?t=bad", "good": "/f/photo.webp?t=bad",
        ])
        for id in ["svg", "html", "big", "bomb", "cut"] {
            let response = try await harness.get("/img/\(id)?w=160")
            #expect(response.status == 502, "\(id)")
            #expect(response.header("Cache-Control") == "no-store", "\(id)")
        }
        #expect(try await harness.get("/img/good?w=160").status == 200)
        let exposition = harness.metrics.exposition()
        for reason in [
            "content_type", "too_large", "image_too_large", "image_undecodable", "image_unsupported",
        ] {
            #expect(
                exposition.contains("pullrefresh_thumbnail_failures_total{reason=\"\(reason)\"} 1"),
                "\(reason)")
        }
        // Failures are remembered: asking again does not fetch again.
        #expect(try await harness.get("/img/cut?w=240").status == 502)
        #expect(try await harness.host.requests(for: "/f/truncated.jpg?t=bad") == 1)
        await harness.server.shutdown()
    }

    @Test("loopback pictures are refused without --allow-private-images")
    func privateRefused() async throws {
        let harness = try await Harness(["a": "/f/private-only.jpg"], policy: .publicOnly)
        #expect(try await harness.get("/img/a?w=160").status == 502)
        #expect(try await harness.host.requests(for: "/f/private-only.jpg") == 0)
        #expect(
            harness.metrics.exposition().contains(
                "pullrefresh_thumbnail_failures_total{reason=\"blocked_address\"} 1"))
        await harness.server.shutdown()
    }

    @Test("100 concurrent requests for one new thumbnail: one fetch, one resize")
    func singleFlight() async throws {
        let harness = try await Harness(["a": "/slow/400/photo.jpg"])
        let port = harness.server.port
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    try await RawConnection.exchange(
                        port: port, ["GET /img/a?w=320 HTTP/1.1\r\nHost: x\r\nAccept: image/webp\r\n\r\n"])[0]
                        .status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.count == 100 && statuses.allSatisfy { $0 == 200 })
        #expect(try await harness.host.requests(for: "/slow/400/photo.jpg") == 1)
        #expect(harness.metrics.exposition().contains("pullrefresh_thumbnails_made_total 1\n"))
        await harness.server.shutdown()
    }

    @Test("the cache stays within its bound, least recently used out")
    func bounded() async throws {
        let names = ["photo.jpg", "photo.png", "photo.webp", "photo.avif", "rotated.jpg", "halves.jpg"]
        var images: [String: String?] = [:]
        for (index, name) in names.enumerated() { images["i\(index)"] = "/f/\(name)?t=bounded" }
        let capacity = 60_000
        // The service's own cache is under test: the server's stored responses would answer the
        // evicted picture in front of it (they hold the response they were given).
        let harness = try await Harness(images, cacheBytes: capacity, storedResponses: 0)
        for index in names.indices {
            #expect(try await harness.get("/img/i\(index)?w=480").status == 200)
            #expect(harness.service.cacheUsage.bytes <= capacity)
        }
        let usage = harness.service.cacheUsage
        #expect(usage.entries < names.count && usage.entries >= 1)
        // The most recent is kept: asking again is a hit, no new fetch.
        #expect(try await harness.get("/img/i5?w=480").status == 200)
        #expect(try await harness.host.requests(for: "/f/halves.jpg?t=bounded") == 1)
        // The first was evicted: asking again fetches again.
        #expect(try await harness.get("/img/i0?w=480").status == 200)
        #expect(try await harness.host.requests(for: "/f/photo.jpg?t=bounded") == 2)
        await harness.server.shutdown()
    }

    @Test("a thumbnail's repeats are answered as stored responses, before routing")
    func repeatsAreStored() async throws {
        let harness = try await Harness(["i0": "/f/photo.jpg?t=stored"])
        for _ in 0..<4 {
            let response = try await harness.get("/img/i0?w=160", accept: "image/webp")
            #expect(response.status == 200)
        }
        // The first is made (deferred: fetch and resize), the next three are the stored answer.
        #expect(harness.metrics.exposition().contains("pullrefresh_http_stored_responses_total 3\n"))
        #expect(try await harness.host.requests(for: "/f/photo.jpg?t=stored") == 1)
        await harness.server.shutdown()
    }

    @Test("a new epoch whose version number repeats: the item's new picture, not the old one")
    func newEpochRepeatingAVersion() async throws {
        // A Redis instance adopting a new epoch (Redis emptied and seeded again) may see version 1
        // again, with other content for the same item id: the index of pictures and the stored
        // answers must follow the store's revision, which never repeats, not its version.
        let host = try await ImageHost.running()
        func items(_ path: String) -> [FeedItem] {
            [
                FeedItem(
                    id: "a", title: "a", body: "", createdAt: Date(timeIntervalSince1970: 0),
                    image: host.url(path).absoluteString)
            ]
        }
        let store = EpochStore(epoch: 1_000_000, version: 1, items: items("/f/halves.jpg?t=epoch"))
        let harness = try Harness(store: store, host: host)
        let before = try await harness.get("/img/a?w=160", accept: "image/webp")
        #expect(before.status == 200)
        // Repeated within the epoch: the stored answer, the same picture.
        #expect(try await harness.get("/img/a?w=160", accept: "image/webp").body == before.body)
        store.adopt(epoch: 2_000_000, version: 1, items: items("/f/photo.jpg?t=epoch"))
        let after = try await harness.get("/img/a?w=160", accept: "image/webp")
        #expect(after.status == 200)
        #expect(try await host.requests(for: "/f/photo.jpg?t=epoch") == 1, "the new picture was fetched")
        #expect(after.header("ETag") != before.header("ETag"))
        #expect(after.body != before.body, "version 1 of the new epoch answered with the old picture")
        // Still version 1, now of the new epoch: its own picture again on the next request.
        #expect(try await harness.get("/img/a?w=160", accept: "image/webp").body == after.body)
        await harness.server.shutdown()
    }
}
