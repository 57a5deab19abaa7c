import Feed
import FeedParsing
import Foundation
import HTTPClient
import TestSupport
import Testing

/// ``FeedFinder`` against sites on loopback (``SiteServer``): feeds, pages naming feeds, the
/// probe paths, hostile pages, and the address policy on every address discovery leads to.
@Suite("Feed discovery", .serialized) struct FeedFinderTests {
    typealias Page = SiteServer.Page

    static func rss(_ title: String) -> Page {
        Page(
            type: "application/rss+xml; charset=utf-8",
            body: "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>\(title)</title>"
                + "<link>https://example.com/</link><item><title>One</title><guid>1</guid></item></channel></rss>"
        )
    }

    static let atom = Page(
        type: "application/atom+xml",
        body: "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>Atom site</title>"
            + "<entry><title>One</title><id>urn:1</id></entry></feed>")

    static let jsonFeed = Page(
        type: "application/feed+json",
        body:
            #"{"version":"https://jsonfeed.org/version/1.1","title":"JSON site","items":[{"id":"1","title":"One"}]}"#
    )

    static func html(_ head: String, body: String = "<p>Hello</p>") -> Page {
        Page(
            type: "text/html; charset=utf-8",
            body: "<!DOCTYPE html><html><head>\(head)</head><body>\(body)</body></html>")
    }

    /// Loopback, exactly 127.0.0.1: the test site, while every other address inside the
    /// network (127.0.0.2, ::1, …) stays refused.
    static let firstLoopbackOnly = AddressPolicy(allowsPrivate: false, alsoAllowed: [[127, 0, 0, 1]])

    func finder(_ policy: AddressPolicy = .any, totalTimeout: Double = 5) -> FeedFinder {
        FeedFinder(limits: FetchLimits(connectTimeout: 2, totalTimeout: totalTimeout), policy: policy)
    }

    func failure(_ url: URL, _ finder: FeedFinder) async -> SubscriptionError? {
        do {
            let found = try await finder.find(url)
            Issue.record("found \(found)")
            return nil
        } catch {
            return error
        }
    }

    @Test("a feed's own address is the feed, with its title", arguments: ["rss", "atom", "json"])
    func feedAddress(kind: String) async throws {
        let pages = ["rss": Self.rss("RSS site"), "atom": Self.atom, "json": Self.jsonFeed]
        let titles = ["rss": "RSS site", "atom": "Atom site", "json": "JSON site"]
        let site = try await SiteServer.start(["/feed": pages[kind]!])
        let found = try await finder().find(site.url("/feed"))
        #expect(found == .feed(site.url("/feed"), title: titles[kind]))
        #expect(try await site.requests().paths == ["/feed": 1])
    }

    @Test("a page's one link, relative, resolved against the page and checked to be a feed")
    func relativeLink() async throws {
        let site = try await SiteServer.start([
            "/blog/post.html": Self.html(
                #"<link rel="alternate" type="application/rss+xml" href="feed.xml" title="Posts">"#),
            "/blog/feed.xml": Self.rss("The blog"),
        ])
        let found = try await finder().find(site.url("/blog/post.html"))
        #expect(found == .feed(site.url("/blog/feed.xml"), title: "The blog"))
        #expect(try await site.requests().paths == ["/blog/post.html": 1, "/blog/feed.xml": 1])
    }

    @Test("a page's <base href> is what its links resolve against, after redirects")
    func baseHref() async throws {
        let site = try await SiteServer.start([
            "/start": .redirect(to: "/pages/index.html"),
            "/pages/index.html": Self.html(
                #"<base href="/sub/"><LINK REL="Alternate" TYPE="Application/Atom+XML" HREF="atom.xml">"#),
            "/sub/atom.xml": Self.atom,
        ])
        let found = try await finder().find(site.url("/start"))
        #expect(found == .feed(site.url("/sub/atom.xml"), title: "Atom site"))
    }

    @Test("several links are offered to choose from: feed types only, resolved, each once, in page order")
    func severalLinks() async throws {
        let head = """
            <link rel="stylesheet alternate" type="text/css" href="/style.css">
            <link rel="alternate" type="application/rss+xml" href="/rss.xml" title="  All   posts ">
            <link rel="home alternate" type="application/atom+xml" href="https://127.0.0.1:{port}/atom.xml#top">
            <link rel="alternate" type="application/rss+xml" href="/rss.xml#again" title="Duplicate">
            <link rel="alternate" type="application/feed+json" href="feed.json">
            <link rel="alternate" type="application/json" href="/wp-json/wp/v2/posts/42">
            <link rel="alternate" type="application/json" href="/comments.json" title="Comments feed">
            <link rel="alternate" type="application/rss+xml" href="javascript:alert(1)">
            <link rel="alternate" type="application/rss+xml" href="data:text/xml,&lt;rss/&gt;">
            <link rel="alternates" type="application/rss+xml" href="/not-alternate.xml">
            <link rel="alternate" type="text/html" hreflang="fr" href="/fr/">
            <link rel="alternate" href="/no-type.xml">
            """
        let site = try await SiteServer.start(["/": Self.html(head)])
        let found = try await finder().find(site.url("/"))
        let origin = "http://127.0.0.1:\(site.port)"
        #expect(
            found
                == .candidates([
                    FeedCandidate(url: "\(origin)/rss.xml", title: "All posts", type: "rss"),
                    FeedCandidate(url: "https://127.0.0.1:\(site.port)/atom.xml", type: "atom"),
                    FeedCandidate(url: "\(origin)/feed.json", type: "json"),
                    FeedCandidate(url: "\(origin)/comments.json", title: "Comments feed", type: "json"),
                ]))
        // Candidates are offered, not fetched.
        #expect(try await site.requests().paths == ["/": 1])
    }

    @Test(
        "a page naming no feed: the probe paths, in order, up to the first feed",
        arguments: FeedFinder.probePaths)
    func probes(path: String) async throws {
        var pages = ["/": Self.html("<title>No links</title>"), path: Self.rss("Probed")]
        // An earlier path that answers a page (not a feed) does not count.
        if path != "/feed" { pages["/feed"] = Self.html("<title>A page</title>") }
        let site = try await SiteServer.start(pages)
        let found = try await finder().find(site.url("/?q=1"))
        #expect(found == .feed(site.url(path), title: "Probed"))
        let asked = try await site.requests().paths
        let position = FeedFinder.probePaths.firstIndex(of: path)!
        for (index, probe) in FeedFinder.probePaths.enumerated() {
            #expect(asked[probe] == (index <= position ? 1 : nil), "\(probe)")
        }
    }

    @Test("nothing anywhere: no_feed, in words, after every probe")
    func nothing() async throws {
        let site = try await SiteServer.start(["/": Self.html("<title>Nothing</title>")])
        let error = await failure(site.url("/"), finder())
        #expect(error?.code == .noFeed)
        #expect(
            error?.message.contains("No feed found at http://127.0.0.1:") == true,
            "\(String(describing: error))")
        let asked = try await site.requests().paths
        #expect(asked.count == 1 + FeedFinder.probePaths.count)
    }

    @Test("entities in a link are decoded, a link in the body counts, and a new feed without items is one")
    func entitiesAndEmptyFeed() async throws {
        let site = try await SiteServer.start([
            "/": Self.html(
                "<title>Site</title>",
                body: #"<p><link rel="alternate" type="application/rss+xml" href="/feed?a=1&amp;b=2" "#
                    + #"title="Caf&eacute; &amp; news"></p>"#),
            "/feed": Page(
                type: "application/rss+xml",
                body: "<rss version=\"2.0\"><channel><title>New</title></channel></rss>"),
            "/empty.json": Page(type: "application/json", body: #"{"items": []}"#),
        ])
        let found = try await finder().find(site.url("/"))
        #expect(found == .feed(site.url("/feed?a=1&b=2"), title: "New"))
        #expect(try await site.requests().paths["/feed?a=1&b=2"] == 1)
        // A JSON document without items is no feed (any API could answer that): the probes
        // go on to /feed.
        #expect(try await finder().find(site.url("/empty.json")) == .feed(site.url("/feed"), title: "New"))
    }

    @Test("the one link a page names must be a feed")
    func linkNotAFeed() async throws {
        let site = try await SiteServer.start([
            "/": Self.html(#"<link rel="alternate" type="application/rss+xml" href="/feed.xml">"#),
            "/feed.xml": Self.html("<title>Not a feed</title>"),
        ])
        let error = await failure(site.url("/"), finder())
        #expect(error?.code == .noFeed)
        #expect(error?.message.contains("/feed.xml as its feed, but that is not a feed") == true)
    }

    @Test("addresses that are not web addresses are refused without a fetch")
    func badAddresses() async throws {
        for text in ["ftp://example.com/feed", "file:///etc/passwd", "javascript:alert(1)", "mailto:a@b.c"] {
            let error = await failure(URL(string: text)!, finder(.publicOnly))
            #expect(error?.code == .badAddress, "\(text)")
        }
        let long = URL(string: "http://127.0.0.1:9/" + String(repeating: "a", count: 2100))!
        #expect(await failure(long, finder())?.code == .badAddress)
    }

    @Test("an unreachable site says so")
    func unreachable() async throws {
        let site = try await SiteServer.start(["/gone": Page(status: 500, type: "text/plain", body: "oops")])
        let error = await failure(site.url("/gone"), finder())
        #expect(error?.code == .unreachable)
        #expect(error?.message.contains("answered HTTP 500") == true, "\(String(describing: error))")
    }

    // MARK: Hostile pages

    @Test("only the first 2 MiB of a page are read")
    func hugePage() async throws {
        let filler = String(
            repeating: "<p>padding padding padding padding padding padding</p>\n", count: 60_000)
        let late = #"<link rel="alternate" type="application/rss+xml" href="/late.xml">"#
        let early = #"<link rel="alternate" type="application/rss+xml" href="/early.xml">"#
        let site = try await SiteServer.start([
            "/late": Self.html("", body: filler + late), "/early": Self.html(early, body: filler + late),
            "/late.xml": Self.rss("Late"), "/early.xml": Self.rss("Early"),
        ])
        #expect(filler.utf8.count > 2 << 20)  // the most of a page read
        let error = await failure(site.url("/late"), finder())
        #expect(error?.code == .noFeed)
        #expect(try await site.requests().paths["/late.xml"] == nil)
        // The same page with its link in the head: one link, not two.
        #expect(try await finder().find(site.url("/early")) == .feed(site.url("/early.xml"), title: "Early"))
    }

    @Test("deep nesting stops the scan, keeping the links read before it")
    func deepPage() async throws {
        let depth = 20_000
        let nested = String(repeating: "<div>", count: depth) + String(repeating: "</div>", count: depth)
        let link = #"<link rel="alternate" type="application/rss+xml" href="/feed.xml">"#
        let site = try await SiteServer.start([
            "/deep": Self.html("", body: nested + link), "/shallow": Self.html(link, body: nested),
            "/feed.xml": Self.rss("Deep"),
        ])
        let error = await failure(site.url("/deep"), finder())
        #expect(error?.code == .noFeed)
        #expect(try await site.requests().paths["/feed.xml"] == nil)
        #expect(try await finder().find(site.url("/shallow")) == .feed(site.url("/feed.xml"), title: "Deep"))
    }

    @Test("thousands of links: the scan stops, and at most 20 feeds are offered")
    func manyLinks() async throws {
        let stylesheets = (0..<5_000).map { #"<link rel="stylesheet" href="/s\#($0).css">"# }.joined()
        let feeds = (0..<3_000).map {
            #"<link rel="alternate" type="application/rss+xml" href="/f\#($0).xml">"#
        }
        .joined()
        let after = #"<link rel="alternate" type="application/rss+xml" href="/after.xml">"#
        let site = try await SiteServer.start([
            "/styles": Self.html(stylesheets + after), "/feeds": Self.html(feeds),
            "/after.xml": Self.rss("After"),
        ])
        #expect(await failure(site.url("/styles"), finder())?.code == .noFeed)
        #expect(try await site.requests().paths["/after.xml"] == nil)
        guard case .candidates(let offered) = try await finder().find(site.url("/feeds")) else {
            Issue.record("no candidates")
            return
        }
        #expect(offered.count == FeedFinder.maxCandidates)
        #expect(offered.first?.url == site.url("/f0.xml").absoluteString)
    }

    @Test("a javascript: link is never followed")
    func javascriptLink() async throws {
        let site = try await SiteServer.start([
            "/": Self.html(
                #"<link rel="alternate" type="application/rss+xml" href="  JavaScript:fetch('/x')">"#)
        ])
        #expect(await failure(site.url("/"), finder())?.code == .noFeed)
        #expect(try await site.requests().paths["/x"] == nil)
    }

    @Test("a page slower than the time limit is given up on")
    func slowPage() async throws {
        let site = try await SiteServer.start([
            "/slow": Page(type: "text/html", body: "<html></html>", delayMilliseconds: 3000)
        ])
        let error = await failure(site.url("/slow"), finder(totalTimeout: 1))
        #expect(error?.code == .unreachable)
        #expect(error?.message.contains("timed out") == true, "\(String(describing: error))")
    }

    // MARK: The address policy

    @Test("every loopback spelling is refused under .publicOnly, and the site sees no request")
    func loopbackSpellings() async throws {
        let site = try await SiteServer.start(["/feed": Self.rss("Loopback")])
        let hosts = [
            "127.0.0.1", "2130706433", "0x7f000001", "127.1", "[::1]", "[::ffff:127.0.0.1]", "localhost",
        ]
        for host in hosts {
            let error = await failure(site.url("/feed", host: host), finder(.publicOnly))
            #expect(error?.code == .refusedAddress, "\(host): \(String(describing: error))")
            #expect(
                error?.message.contains("inside the network") == true, "\(host): \(String(describing: error))"
            )
        }
        // Literals are refused by their spelling, before connecting; a name when connecting.
        let literal = await failure(site.url("/feed", host: "0x7f000001"), finder(.publicOnly))
        #expect(literal?.message.contains("0x7f000001 is the address 127.0.0.1 (loopback)") == true)
        let name = await failure(site.url("/feed", host: "localhost"), finder(.publicOnly))
        #expect(name?.message.contains("localhost led to") == true, "\(String(describing: name))")
        #expect(try await site.requests().total == 0)
        // With private addresses allowed, the same hosts work.
        for host in hosts {
            let url = site.url("/feed", host: host)
            #expect(try await finder(.any).find(url) == .feed(url, title: "Loopback"), "\(host)")
        }
        #expect(try await site.requests().total == hosts.count)
    }

    @Test("redirects, links and probes that lead to another loopback address are refused unasked")
    func discoveredAddresses() async throws {
        let site = try await SiteServer.start([
            "/redirect": .redirect(to: "http://127.0.0.2:{port}/redirected.xml"),
            "/linked": Self.html(
                #"<link rel="alternate" type="application/rss+xml" href="http://127.0.0.2:{port}/linked.xml">"#
            ),
            "/literal": Self.html(
                #"<link rel="alternate" type="application/atom+xml" href="http://0x7f000002:{port}/literal.xml">"#
            ),
            "/": Self.html("<title>No links</title>"),
            "/feed": .redirect(to: "http://[::1]:{port}/probed.xml"),
            "/redirected.xml": Self.rss("x"), "/linked.xml": Self.rss("x"), "/literal.xml": Self.rss("x"),
            "/probed.xml": Self.rss("x"),
        ])
        for path in ["/redirect", "/linked", "/literal", "/"] {
            let error = await failure(site.url(path), finder(Self.firstLoopbackOnly))
            #expect(error?.code == .refusedAddress, "\(path): \(String(describing: error))")
        }
        let literal = await failure(site.url("/literal"), finder(Self.firstLoopbackOnly))
        #expect(literal?.message.contains("0x7f000002 is the address 127.0.0.2 (loopback)") == true)
        let asked = try await site.requests().paths
        #expect(asked == ["/redirect": 1, "/linked": 1, "/literal": 2, "/": 1, "/feed": 1])
    }
}
