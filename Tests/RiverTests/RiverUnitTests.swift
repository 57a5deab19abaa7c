import Feed
import FeedParsing
import Foundation
import Testing

@testable import HTTPClient
@testable import River

/// The river's pure parts: OPML in, hints, ids, the politeness rules.
@Suite("River rules without sockets")
struct RiverUnitTests {
    @Test func opmlFoldersAreKeptOneLevelDeepAndDuplicatesDropped() throws {
        let opml = """
            <?xml version="1.0"?><opml version="2.0"><head><title>Mine</title></head><body>
            <outline text="News"><outline text="Deep"><outline type="rss" text="A &amp; B" xmlUrl="https://a.example/feed"/></outline>
            <outline type="rss" text="Text" title="Title" xmlUrl="http://b.example/rss"/></outline>
            <outline type="rss" text="Again" xmlUrl="https://A.example/feed"/>
            <outline text="folder without feeds"/></body></opml>
            """
        let list = try SubscriptionList.parse(Data(opml.utf8))
        #expect(
            list == [
                Subscription(url: URL(string: "https://a.example/feed")!, title: "A & B", folder: "Deep"),
                Subscription(url: URL(string: "http://b.example/rss")!, title: "Title", folder: "News"),
            ])
        // An upload from the phone: outlines that are not feeds are left out and counted.
        let upload = """
            <opml version="2.0"><body><outline title="Mixed">
            <outline xmlUrl="https://a.example/feed" text="A"/><outline xmlUrl="javascript:alert(1)"/>
            <outline xmlUrl="https://a.example/feed#again"/></outline>
            <outline xmlUrl="https://c.example/feed"/></body></opml>
            """
        let reading = try SubscriptionList.read(document: Data(upload.utf8))
        #expect(
            reading.subscriptions == [
                Subscription(url: URL(string: "https://a.example/feed")!, title: "A", folder: "Mixed"),
                Subscription(url: URL(string: "https://c.example/feed")!),
            ])
        #expect(reading.duplicates == 1)
        #expect(reading.refusedCount == 1)
        #expect(reading.refused == ["xmlUrl 'javascript:alert(1)' is not an http:// or https:// URL"])
        #expect(throws: UpstreamError.self) { try SubscriptionList.read(document: Data("<rss/>".utf8)) }
    }

    /// The transfer loop keeps one idle connection per source a river may have: the two
    /// limits live in modules that do not see each other.
    @Test func theLoopKeepsAConnectionPerSource() {
        #expect(TransferLoop.keptConnections == SubscriptionList.maxSources)
    }

    @Test(arguments: [
        (
            "<opml><body><outline xmlUrl=\"file:///etc/passwd\"/></body></opml>",
            "not an http:// or https:// URL"
        ),
        (
            "<opml><body><outline xmlUrl=\"javascript:alert(1)\"/></body></opml>",
            "not an http:// or https:// URL"
        ),
        ("<rss><channel/></rss>", "not an OPML document"),
        ("<opml><body><outline text=\"x\"/></body></opml>", "no <outline> has an xmlUrl"),
        ("<opml><body><outline xmlUrl=\"http://a.example/\">", "not well-formed XML"),
        ("<!DOCTYPE opml [<!ENTITY x \"y\">]><opml/>", "entities"),
    ])
    func badOPMLIsRefusedWithAReason(document: String, reason: String) {
        #expect {
            try SubscriptionList.parse(Data(document.utf8))
        } throws: { error in
            (error as? UpstreamError)?.message.contains(reason) == true
        }
    }

    @Test func moreThanFiveHundredSourcesAreRefused() {
        let outlines = (0...500).map { "<outline xmlUrl=\"https://e.example/\($0)\"/>" }.joined()
        #expect(throws: UpstreamError.self) {
            try SubscriptionList.parse(Data("<opml><body>\(outlines)</body></opml>".utf8))
        }
    }

    /// The hints of a document as the river gets them: from the parser that reads its items.
    static func hints(_ document: String, contentType: String? = nil, base: String = "https://feed.example/")
        throws -> FeedHints
    {
        try FeedDocument.read(Data(document.utf8), contentType: contentType, base: URL(string: base)!).hints
    }

    static func hints(_ bytes: [UInt8], contentType: String?) throws -> FeedHints {
        try FeedDocument.read(Data(bytes), contentType: contentType, base: URL(string: "https://f.example/")!)
            .hints
    }

    @Test func hintsComeFromTheChannelNotTheItems() throws {
        let rss = """
            <rss><channel><title>The <![CDATA[Channel]]> &amp; co</title><link>https://site.example/</link>
            <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="self" href="https://feed.example/rss"/>
            <ttl>30</ttl><skipHours><hour>2</hour><hour>1</hour><hour>24</hour><hour>1</hour></skipHours>
            <skipDays><day>Sunday</day><day>saturday</day></skipDays>
            <item><title>Item title</title><link>https://item.example/</link><ttl>5</ttl></item></channel></rss>
            """
        #expect(
            try Self.hints(rss)
                == FeedHints(
                    title: "The Channel & co", siteURL: "https://site.example/", ttlMinutes: 30,
                    skipHours: [0, 1, 2], skipDays: [1, 7]))
        // Atom: the first alternate link (the default relation), not `self`; an HTML title is read as HTML.
        let atom = """
            <feed xmlns="http://www.w3.org/2005/Atom"><title type="html">Atom &amp;lt;3</title>
            <link rel="self" href="/feed"/><link href="/home"/><link href="/later"/>
            <entry><title>Entry</title><link href="/entry"/></entry></feed>
            """
        let atomHints = try Self.hints(atom, base: "https://feed.example/x")
        #expect(atomHints.siteURL == "https://feed.example/home" && atomHints.title == "Atom <3")
        // RSS 1.0 (RDF): the channel is a sibling of the items, its elements in the RSS namespace.
        let rdf = """
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
            <channel rdf:about="https://rdf.example/"><title>RDF channel</title><link>https://rdf.example/</link></channel>
            <item rdf:about="https://rdf.example/1"><title>One</title></item></rdf:RDF>
            """
        #expect(try Self.hints(rdf) == FeedHints(title: "RDF channel", siteURL: "https://rdf.example/"))
        // A prefixed RSS vocabulary is matched by its namespace, not by its prefix.
        let prefixed = """
            <r:rss xmlns:r="http://backend.userland.com/rss2"><r:channel><r:title>Prefixed</r:title>
            <r:ttl>60</r:ttl><r:item><r:title>x</r:title></r:item></r:channel></r:rss>
            """
        #expect(try Self.hints(prefixed) == FeedHints(title: "Prefixed", ttlMinutes: 60))
        // JSON Feed: `title` and `home_page_url`.
        let json = """
            {"version":"https://jsonfeed.org/version/1.1","title":" JSON  feed ","home_page_url":"/site",
             "items":[{"id":"1","content_text":"hello"}]}
            """
        #expect(
            try Self.hints(json, base: "https://j.example/feed")
                == FeedHints(title: "JSON feed", siteURL: "https://j.example/site"))
    }

    @Test func hintsAreReadInTheDocumentsCharsetAndOddShapesAreIgnored() throws {
        // ISO-8859-1 declared by the prolog: the title's "é" (0xE9) is read as such.
        let latin1 =
            Array(#"<?xml version="1.0" encoding="ISO-8859-1"?><rss><channel><title>Caf"#.utf8) + [0xE9]
            + Array("</title><item><title>x</title></item></channel></rss>".utf8)
        #expect(try Self.hints(latin1, contentType: "application/rss+xml").title == "Café")
        // Odd shapes never crash and give no hint: empty elements, junk values, every hour skipped.
        let allHours = (0..<24).map { "<hour>\($0)</hour>" }.joined()
        for odd in [
            "<title></title>", "<link/>", "<ttl>x</ttl>", "<ttl>0</ttl>", "<ttl>99999</ttl>",
            "<link>javascript:alert(1)</link>", "<skipHours>\(allHours)</skipHours>",
            "<skipDays><day>Someday</day></skipDays>",
            "<skipHours><hour>25</hour><hour>-1</hour></skipHours>",
        ] {
            let hints = try Self.hints("<rss><channel>\(odd)<item><title>x</title></item></channel></rss>")
            #expect(hints == FeedHints(), "\(odd)")
        }
        // Elements outside the channel, or nested deeper, are not the channel's.
        let nested =
            "<rss><channel><image><title>Logo</title><link>https://logo.example/</link></image>"
            + "<item><title>x</title></item></channel><ttl>30</ttl></rss>"
        #expect(try Self.hints(nested) == FeedHints())
    }

    @Test func itemIDsJoinTheKeyAndStayWithinTheLimit() {
        #expect(RiverItemID.join(key: "0123456789ab", id: "guid") == "0123456789ab:guid")
        let long = String(repeating: "x", count: 256)
        let joined = RiverItemID.join(key: "0123456789ab", id: long)
        #expect(joined.count == FeedItem.maxIDLength)
        #expect(joined != RiverItemID.join(key: "0123456789ab", id: long + "y"))
        #expect(RiverItemID.key(of: joined) == "0123456789ab")
        #expect(
            SourceKey.of(URL(string: "HTTPS://Example.org/feed#x")!)
                == SourceKey.of(URL(string: "https://example.org/feed")!))
        #expect(SourceLabel.isWellFormedKey(SourceKey.of(URL(string: "https://example.org/feed")!)))
    }

    @Test func thePolicySpreadsSourcesAndAdaptsToQuietFeeds() {
        let policy = RefreshPolicy(base: 900)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let firsts = (0..<50).map {
            policy.slot(
                after: now, key: SourceKey.of(URL(string: "https://e.example/\($0)")!), interval: 900,
                minimumWait: 0)
        }
        #expect(firsts.allSatisfy { $0 >= now && $0 < now.addingTimeInterval(900) })
        #expect(
            Set(firsts.map { Int($0.timeIntervalSince(now) / 90) }).count >= 8, "spread over the interval")
        var state = SourceState()
        state.lastNewItems = now.addingTimeInterval(-3 * 86_400)
        #expect(policy.adaptiveInterval(state, now: now) == 86_400, "a feed quiet for days: the 24 h cap")
        state.lastNewItems = now.addingTimeInterval(-600)
        state.meanGap = 300
        #expect(policy.adaptiveInterval(state, now: now) == 900, "a busy feed: the base interval")
        state.lastNewItems = now.addingTimeInterval(-10_000)
        #expect(policy.adaptiveInterval(state, now: now) == 5_000)
    }

    @Test func thePolicyHonoursTTLSkipsAndCapsTheBackOff() {
        let policy = RefreshPolicy(base: 60)
        let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15 08:00 UTC, a Friday
        var state = SourceState()
        state.hints = FeedHints(ttlMinutes: 30)
        let fresh = policy.succeeded(state, key: "000000000000", now: now, newItems: true, freshFor: nil)
        #expect(
            fresh.freshUntil == now.addingTimeInterval(1800)
                && fresh.nextFetch == now.addingTimeInterval(1800))
        state.hints = FeedHints(skipHours: [8, 9])
        let skipped = policy.succeeded(state, key: "000000000000", now: now, newItems: true, freshFor: nil)
        #expect(
            skipped.nextFetch == now.addingTimeInterval(2 * 3600),
            "moved to 10:00, the first hour not skipped")
        var failing = SourceState()
        failing.failures = 30
        let capped = policy.failed(failing, now: now, error: UpstreamError("x", kind: .status), random: 0.99)
        #expect(capped.nextFetch == now.addingTimeInterval(6 * 3600))
        let waited = policy.failed(
            SourceState(), now: now, error: UpstreamError("x", kind: .status, retryAfter: 600), random: 0.5)
        #expect(waited.notBefore == now.addingTimeInterval(600) && !policy.mayPull(waited, now: now))
    }

    @Test func cacheHeadersGiveFreshnessAndRetryAfter() {
        #expect(CacheHeaders.freshness(cacheControl: "public, max-age=120", expires: nil, date: nil) == 120)
        #expect(CacheHeaders.freshness(cacheControl: "no-cache", expires: nil, date: nil) == 0)
        #expect(
            CacheHeaders.freshness(
                cacheControl: nil, expires: "Thu, 01 Jan 2026 00:10:00 GMT",
                date: "Thu, 01 Jan 2026 00:00:00 GMT")
                == 600)
        #expect(CacheHeaders.freshness(cacheControl: nil, expires: "0", date: nil) == 0)
        #expect(CacheHeaders.freshness(cacheControl: nil, expires: nil, date: nil) == nil)
        #expect(CacheHeaders.retryAfter("120") == 120)
        let now = Date(timeIntervalSince1970: 1_767_225_600)
        #expect(CacheHeaders.retryAfter("Thu, 01 Jan 2026 00:01:00 GMT", now: now) == 60)
        #expect(CacheHeaders.retryAfter("soon") == nil)
    }

    @Test func sourceStateIsWrittenAsJSONEncoderWouldAndReadsBack() throws {
        var full = SourceState()
        full.etag = "W/\"abc\\d\""
        full.lastModified = "Thu, 01 Jan 2026 00:00:00 GMT"
        full.lastSuccess = Date(timeIntervalSinceReferenceDate: 786_297_600.123_456_7)
        full.lastError = "line one\nline two\t<b>\u{1}\u{7f} ünïcode 日本"
        full.failingSince = Date(timeIntervalSinceReferenceDate: -1.5)
        full.failures = 7
        full.nextFetch = Date(timeIntervalSinceReferenceDate: 1e-7)
        full.freshUntil = Date(timeIntervalSinceReferenceDate: 786_297_900)
        full.notBefore = Date(timeIntervalSinceReferenceDate: 1e16)
        full.lastNewItems = Date(timeIntervalSinceReferenceDate: 0)
        full.meanGap = 3_600.25
        full.hints = FeedHints(
            title: "A \"title\"", siteURL: "https://example.org/a/b", ttlMinutes: 60, skipHours: [0, 23],
            skipDays: [1])
        full.recovered = "bare &"
        var hintsOnly = SourceState()
        hintsOnly.hints = FeedHints(skipDays: [7])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for state in [SourceState(), full, hintsOnly] {
            let written = state.encoded()
            #expect(SourceState.decode(written) == state)
            // The same document as JSONEncoder's (which escapes `/`, and may spell numbers
            // differently), so states stored before, or by an older instance, read the same.
            let ours = try JSONSerialization.jsonObject(with: Data(written)) as? NSDictionary
            let theirs = try JSONSerialization.jsonObject(with: try encoder.encode(state)) as? NSDictionary
            #expect(ours != nil)
            #expect(ours == theirs, "\(String(decoding: written, as: UTF8.self))")
        }
        var infinite = SourceState()
        infinite.meanGap = .infinity
        #expect(SourceState.decode(infinite.encoded()).meanGap == nil)
    }
}
