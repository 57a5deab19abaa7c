import Feed
import Foundation
import Testing

@testable import Upstream

/// The river's pure parts: OPML in, hints, ids, the politeness rules.
@Suite("River rules without sockets")
struct RiverUnitTests {
    @Test func opmlFoldersAreFlattenedAndDuplicatesDropped() throws {
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
                Subscription(url: URL(string: "https://a.example/feed")!, title: "A & B"),
                Subscription(url: URL(string: "http://b.example/rss")!, title: "Title"),
            ])
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

    @Test func hintsComeFromTheChannelNotTheItems() {
        let rss = """
            <rss><channel><title>The <![CDATA[Channel]]> &amp; co</title><link>https://site.example/</link>
            <ttl>30</ttl><skipHours><hour>1</hour><hour>2</hour></skipHours><skipDays><day>Sunday</day></skipDays>
            <item><title>Item title</title><link>https://item.example/</link><ttl>5</ttl></item></channel></rss>
            """
        let hints = FeedHints.xml(Data(rss.utf8), base: URL(string: "https://feed.example/")!)
        #expect(
            hints
                == FeedHints(
                    title: "The Channel & co", siteURL: "https://site.example/", ttlMinutes: 30,
                    skipHours: [1, 2],
                    skipDays: [1]))
        let atom =
            "<feed><title>Atom</title><link rel=\"self\" href=\"/feed\"/><link href=\"/home\"/><entry/></feed>"
        let atomHints = FeedHints.xml(Data(atom.utf8), base: URL(string: "https://feed.example/x")!)
        #expect(atomHints.siteURL == "https://feed.example/home" && atomHints.title == "Atom")
        // Odd shapes never crash: empty elements, unclosed tags, a `>` right after the name.
        for odd in [
            "<title>", "<title></title>", "<link/>", "<title", "<ttl>x</ttl>", "<link>javascript:x</link>",
        ] {
            let hints = FeedHints.xml(
                Data("<rss><channel>\(odd)".utf8), base: URL(string: "https://f.example/")!)
            #expect(hints.siteURL == nil && hints.ttlMinutes == nil)
        }
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
