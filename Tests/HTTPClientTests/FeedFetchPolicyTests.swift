import Foundation
import HTTPClient
import TestSupport
import Testing

/// Feed fetches under an ``AddressPolicy`` (the owner's feeds): refused addresses see no
/// request, unchecked fetches (the operator's sources) are unaffected, and a batch mixes both.
@Suite("Feed fetches under an address policy", .serialized) struct FeedFetchPolicyTests {
    static let feed = SiteServer.Page(
        type: "application/rss+xml",
        body: "<rss version=\"2.0\"><channel><title>T</title><item><title>A</title></item></channel></rss>")

    let limits = FetchLimits(connectTimeout: 2, totalTimeout: 5)

    @Test("a feed on loopback is refused under .publicOnly, in every spelling, and never asked")
    func refused() async throws {
        let site = try await SiteServer.start(["/feed.xml": Self.feed])
        let fetcher = HTTPFetcher(limits: limits)
        for host in [
            "127.0.0.1", "2130706433", "0x7f000001", "127.1", "[::1]", "[::ffff:127.0.0.1]", "localhost",
        ] {
            do {
                _ = try await fetcher.fetch(site.url("/feed.xml", host: host), policy: .publicOnly)
                Issue.record("\(host) was fetched")
            } catch {
                #expect(error.kind == .blockedAddress, "\(host): \(error)")
                #expect(error.message.contains("inside the network"), "\(host): \(error)")
            }
        }
        #expect(try await site.requests().total == 0)
        // Without a policy (the operator's --source) and with .any, the same hosts work.
        for host in [
            "127.0.0.1", "2130706433", "0x7f000001", "127.1", "[::1]", "[::ffff:127.0.0.1]", "localhost",
        ] {
            let unchecked = try await fetcher.fetch(site.url("/feed.xml", host: host))
            let allowed = try await fetcher.fetch(site.url("/feed.xml", host: host), policy: .any)
            #expect(unchecked == allowed, "\(host)")
            guard case .body(let body) = allowed else {
                Issue.record("\(host): \(allowed)")
                continue
            }
            #expect(body.contentType == "application/rss+xml")
        }
        #expect(try await site.requests().total == 14)
    }

    @Test("a redirect to another loopback address is refused, and never reaches it")
    func redirect() async throws {
        let site = try await SiteServer.start([
            "/moved": .redirect(to: "http://127.0.0.2:{port}/feed.xml"), "/feed.xml": Self.feed,
        ])
        let firstOnly = AddressPolicy(allowsPrivate: false, alsoAllowed: [[127, 0, 0, 1]])
        do {
            _ = try await HTTPFetcher(limits: limits).fetch(site.url("/moved"), policy: firstOnly)
            Issue.record("the redirect was followed")
        } catch {
            #expect(error.kind == .blockedAddress)
            #expect(error.message.contains("127.0.0.2 (loopback)"), "\(error)")
        }
        let seen = try await site.requests()
        #expect(seen.paths == ["/moved": 1])
    }

    @Test("a batch checks each feed with its own policy")
    func batch() async throws {
        let site = try await SiteServer.start(["/a.xml": Self.feed, "/b.xml": Self.feed])
        let requests = [
            HTTPFetcher.FeedRequest(url: site.url("/a.xml")),
            HTTPFetcher.FeedRequest(url: site.url("/b.xml", host: "127.1"), policy: .publicOnly),
            HTTPFetcher.FeedRequest(url: site.url("/b.xml", host: "localhost"), policy: .publicOnly),
        ]
        var results: [Int: Result<FetchResponse, UpstreamError>] = [:]
        for await completion in HTTPFetcher(limits: limits).fetchAll(requests, concurrency: 3) {
            results[completion.index] = completion.result
        }
        guard case .success(.body) = results[0] else {
            Issue.record("the unchecked feed: \(String(describing: results[0]))")
            return
        }
        for index in [1, 2] {
            guard case .failure(let error) = results[index] else {
                Issue.record("\(index) was fetched: \(String(describing: results[index]))")
                continue
            }
            #expect(error.kind == .blockedAddress)
        }
        #expect(try await site.requests().paths == ["/a.xml": 1])
    }
}
