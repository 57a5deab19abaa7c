import Foundation
import HTTPClient
import TestSupport
import Testing

@testable import FeedParsing

/// The ill-formed, namespaced and odd feeds the reference readers show (issue 20), each a
/// document in Fixtures/lenient/: every one is read with the right titles, ids, dates, links and
/// pictures, and says what was recovered from.
@Suite("Lenient feeds")
struct LenientFeedTests {
    static let base = URL(string: "https://feeds.example.net/dir/feed")!

    static func read(_ name: String, type: String? = "application/rss+xml") throws -> FeedReading {
        let data = try Data(contentsOf: UpstreamServer.fixtures.appendingPathComponent("lenient/" + name))
        return try FeedDocument.read(data, contentType: type, base: base)
    }

    static func date(_ text: String) -> Date { FeedDate.rfc3339(text)! }

    @Test func undeclaredPrefixesAreReadAsTheirBarePrefix() throws {
        let reading = try Self.read("undeclared-prefix.xml")
        let entries = reading.entries
        #expect(entries.map(\.id) == ["garden-ep-2", "garden-ep-1"])
        #expect(entries.map(\.title) == ["Tomatoes in March", "Seeds"])
        #expect(entries[0].url == "https://garden.example.org/ep/2")
        #expect(entries[0].date == Self.date("2026-03-02T07:00:00Z"))
        // itunes:image (the audio enclosure is no picture); media:thumbnail.
        #expect(entries[0].image == "https://cdn.example.org/garden/ep2.jpg")
        #expect(entries[1].image == "https://cdn.example.org/garden/seeds.jpg")
        #expect(entries[1].url == nil)  // isPermaLink="false"
        #expect(reading.recovered?.contains("Namespace prefix itunes") == true, "\(reading.recovered ?? "")")
    }

    @Test func aDefaultNamespaceOnTheRootAndClashingLocalNames() throws {
        let reading = try Self.read("namespaced-root.xml")
        #expect(reading.recovered == nil)
        let entry = try #require(reading.entries.first)
        #expect(reading.entries.count == 1)
        #expect(entry.title == "Scripting News")  // not dc:title, which comes first
        #expect(entry.url == "https://userland.example.org/2026/01/10")  // not atom:link
        #expect(entry.id == "https://userland.example.org/2026/01/10")
        #expect(entry.body == "It's a good day.")
        #expect(entry.date == Self.date("2026-01-10T12:00:00Z"))
    }

    @Test func rss1WithEveryElementPrefixed() throws {
        let reading = try Self.read("prefixed-rss1.xml", type: "application/rdf+xml")
        #expect(reading.recovered == nil)
        let entries = reading.entries
        #expect(entries.map(\.title) == ["First article", "Second article"])
        #expect(entries.map(\.id) == ["https://journal.example.org/a", "urn:journal:b"])  // rdf:about
        #expect(entries[0].url == "https://journal.example.org/a")
        #expect(entries[0].date == Self.date("2026-01-03T08:00:00Z"))
        #expect(entries[0].body == "Full text")
        #expect(entries[0].image == "https://feeds.example.net/img/a.png")  // content's <img>, resolved
        #expect(entries[1].body == "Short text")
        #expect(entries[1].url == nil)
    }

    @Test func aDublinCoreTitleWhenThereIsNoTitle() throws {
        let entry = try #require(try Self.read("dc-title-only.xml").entries.first)
        #expect(entry.title == "Budget & roads")
        #expect(entry.id == "https://council.example.org/minutes/2026-02-01")
        #expect(entry.date == Self.date("2026-02-01T18:30:00Z"))
    }

    @Test func aMediaTitleInsideAGroupWhenThereIsNoTitle() throws {
        let entry = try #require(try Self.read("media-title-only.xml").entries.first)
        #expect(entry.title == "Harbour at dawn")
        #expect(entry.id == "https://video.example.org/harbour")
        #expect(entry.url == "https://video.example.org/harbour")  // a permalink guid
        // medium="image", not the video
        #expect(entry.image == "https://video.example.org/harbour-poster.jpg")
        #expect(entry.date == Self.date("2026-02-03T05:00:00Z"))
    }

    @Test func bareAmpersandsAndHTMLEntitiesAreKept() throws {
        let reading = try Self.read("bare-ampersand.xml")
        let entries = reading.entries
        #expect(entries.map(\.id) == ["deal-7", "deal-8"])
        #expect(entries[0].title == "AT&T & friends — half price")
        #expect(entries[0].url == "https://shop.example.org/item?id=7&ref=rss&utm=x")
        #expect(entries[0].body == "Tom & Jerry… café")
        #expect(entries[1].image == "https://shop.example.org/p?id=8&size=large")  // an image enclosure
        #expect(reading.recovered?.contains("escaped 6 bare \"&\"") == true, "\(reading.recovered ?? "")")
        #expect(reading.recovered?.contains("decoded 4 HTML entities") == true)
    }

    @Test func anUnclosedCDATAIsClosedAtItsElement() throws {
        let reading = try Self.read("unclosed-cdata.xml")
        let entries = reading.entries
        #expect(entries.map(\.title) == ["One", "Two"])
        #expect(entries.map(\.id) == ["https://blog.example.org/1", "https://blog.example.org/2"])
        #expect(entries.map(\.body) == ["The first post", "The second post"])
        #expect(entries.map(\.url) == ["https://blog.example.org/1", "https://blog.example.org/2"])
        #expect(reading.recovered?.contains("closed 1 unclosed CDATA") == true, "\(reading.recovered ?? "")")
    }

    @Test func atom03Base64AndEscapedContent() throws {
        let reading = try Self.read("atom03-base64.xml", type: "application/atom+xml")
        #expect(reading.recovered == nil)
        let entries = reading.entries
        #expect(entries.map(\.id) == ["tag:old.example.org,2004:moon", "tag:old.example.org,2004:cheese"])
        #expect(entries[0].title == "Über the moon")
        #expect(entries[0].body == "Cow & moon")
        #expect(entries[0].url == "https://old.example.org/2004/moon")
        #expect(entries[0].date == Self.date("2004-05-01T15:00:00Z"))  // issued over modified
        #expect(entries[1].title == "Cheese fact")  // mode="escaped" type="text/html"
        #expect(entries[1].date == Self.date("2004-04-01T08:00:00Z"))
    }

    @Test func theDocumentsOwnEncodingWinsOverContentType() throws {
        let prolog = try Self.read("charset-prolog.xml", type: "text/xml; charset=utf-8")
        #expect(prolog.entries.map(\.title) == ["Crème brûlée"])
        #expect(prolog.recovered == nil)
        // No BOM and no declaration: the header's charset is the only word on it.
        let header = try Self.read("charset-header.xml", type: "text/xml; charset=\"windows-1252\"")
        #expect(header.entries.map(\.title) == ["It’s “quoted” – naïve"])
        #expect(header.entries.map(\.id) == ["quotes"])
    }

    /// 0x90 has no character in windows-1252: libxml2's converter fails there and says so
    /// without a parser context; the error is counted in the note, never printed.
    @Test func anUndecodableByteEndsTheReadAndIsReported() throws {
        var bytes = Array(
            "<rss version=\"2.0\"><channel><item><title>Before</title><guid>b</guid></item>".utf8)
        bytes += Array("<item><title>After ".utf8) + [0x90] + Array("</title></item></channel></rss>".utf8)
        let reading = try FeedDocument.read(
            Data(bytes), contentType: "text/xml; charset=windows-1252", base: Self.base)
        #expect(reading.entries.map(\.title).first == "Before")
        #expect(reading.recovered?.contains("conversion failed") == true, "\(reading.recovered ?? "")")
    }

    @Test func aStrayByteAndAFalseDoctypeAreRecovered() throws {
        let reading = try Self.read("stray-byte.xml", type: "text/xml")
        #expect(reading.entries.map(\.title) == ["Caf\u{FFFD} crème"])
        #expect(reading.entries.map(\.id) == ["stray"])
        #expect(reading.recovered != nil)
    }

    @Test func aPodcastWithITunesFields() throws {
        let reading = try Self.read("podcast.xml")
        #expect(reading.recovered == nil)
        let entries = reading.entries
        #expect(entries.map(\.id) == ["nightsky-12", "nightsky-11"])
        #expect(entries.map(\.title) == ["Episode 12: Comets", "Meteors"])  // <title>, else itunes:title
        #expect(entries[0].body == "Where comets come from.")  // itunes:summary
        #expect(entries[0].image == "https://nightsky.example.org/ep12.jpg")
        #expect(entries[0].url == "https://nightsky.example.org/12")
        #expect(entries[0].date == Self.date("2026-01-17T01:00:00Z"))
        #expect(entries[1].body == "Look up.")
        #expect(entries[1].image == "https://nightsky.example.org/meteors.png")  // the first <img>
        #expect(entries[1].url == nil)
    }

    @Test func picturesFollowTheOrderAndAreHTTPOnly() throws {
        let xml = """
            <rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"
              xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>
            <item><title>All</title><guid>a</guid>
              <description>&lt;img src="https://e.org/content.png"&gt;</description>
              <itunes:image href="https://e.org/itunes.png"/>
              <enclosure url="https://e.org/enclosure.png" type="image/png"/>
              <media:content url="https://e.org/content.jpg" type="image/jpeg"/>
              <media:thumbnail url="https://e.org/thumb.jpg"/></item>
            <item><title>No thumbnail</title><guid>b</guid>
              <itunes:image href="https://e.org/itunes.png"/>
              <enclosure url="https://e.org/enclosure.png" type="image/png"/></item>
            <item><title>Unsafe</title><guid>c</guid>
              <media:thumbnail url="javascript:alert(1)"/>
              <description>&lt;img src="data:image/png;base64,AAAA"&gt;</description></item>
            </channel></rss>
            """
        let entries = try FeedDocument.parse(Data(xml.utf8), contentType: "text/xml", base: Self.base)
        #expect(entries.map(\.image) == ["https://e.org/thumb.jpg", "https://e.org/enclosure.png", nil])
    }

    @Test func atomImagesComeFromMediaAndEnclosureLinks() throws {
        let xml = """
            <feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/">
            <entry><id>e1</id><title type="html">&lt;b&gt;Bold&lt;/b&gt; move</title>
              <link rel="enclosure" type="image/webp" href="/pics/e1.webp"/>
              <link href="/e1"/><updated>2026-01-01T00:00:00Z</updated></entry>
            <entry><id>e2</id><title>&lt;b&gt; is text here</title>
              <media:thumbnail url="https://e.org/e2.jpg"/></entry>
            </feed>
            """
        let entries = try FeedDocument.parse(
            Data(xml.utf8), contentType: "application/atom+xml", base: Self.base)
        #expect(entries.map(\.title) == ["Bold move", "<b> is text here"])
        #expect(entries.map(\.image) == ["https://feeds.example.net/pics/e1.webp", "https://e.org/e2.jpg"])
        #expect(entries[0].url == "https://feeds.example.net/e1")
    }

    /// Sloppy HTML inside a well-formed feed is the HTML parser's business, not a recovery.
    @Test func sloppyHTMLInAWellFormedFeedIsNoRecovery() throws {
        let xml = """
            <rss version="2.0"><channel><item><title>Fish &amp; chips</title><guid>f</guid>
            <description>&lt;p&gt;Fish &amp; chips &lt;b&gt;unclosed &lt;/i&gt;&amp;bogus;</description></item></channel></rss>
            """
        let reading = try FeedDocument.read(Data(xml.utf8), contentType: "text/xml", base: Self.base)
        #expect(reading.entries.map(\.body) == ["Fish & chips unclosed &bogus;"])
        #expect(reading.recovered == nil, "\(reading.recovered ?? "")")
    }

    @Test func atomWithoutItsNamespace() throws {
        let xml = """
            <feed><entry><id>n1</id><title>No namespace</title>
            <source><link href="https://elsewhere.example/feed"/></source><link href="https://e.org/n1"/>
            <updated>2026-01-05T00:00:00Z</updated><summary>Still Atom</summary></entry></feed>
            """
        let entries = try FeedDocument.parse(Data(xml.utf8), contentType: "text/xml", base: Self.base)
        #expect(entries.map(\.id) == ["n1"])
        #expect(entries.map(\.title) == ["No namespace"])
        #expect(entries.map(\.body) == ["Still Atom"])
        #expect(entries.map(\.url) == ["https://e.org/n1"])
        #expect(entries.map(\.date) == [Self.date("2026-01-05T00:00:00Z")])
    }

    @Test func aTruncatedDocumentKeepsWhatItHas() throws {
        let xml =
            "<rss version=\"2.0\"><channel><item><title>Whole</title><guid>w</guid></item><item><title>Cut"
        let reading = try FeedDocument.read(Data(xml.utf8), contentType: "text/xml", base: Self.base)
        #expect(reading.entries.map(\.title) == ["Whole", "Cut"])
        #expect(reading.recovered != nil)
    }

    @Test func deepNestingStopsTheRead() {
        let depth = XMLStreamReader.maxDepth + 10
        let xml =
            "<rss><channel><item><title>x</title>" + String(repeating: "<a>", count: depth)
            + String(repeating: "</a>", count: depth) + "</item></channel></rss>"
        #expect {
            try FeedDocument.parse(Data(xml.utf8), contentType: "text/xml", base: Self.base)
        } throws: { error in
            (error as? UpstreamError)?.message.contains("nested deeper than 256") == true
        }
    }

    /// What recovery never lets through, each with its one-line reason.
    @Test(arguments: [
        ("text/html", "<!DOCTYPE html><html><body>Sign in</body></html>", "answered text/html, not a feed"),
        (
            "text/xml", "<!DOCTYPE html>\n<html><head><meta charset=utf-8><body><p>Error",
            "an HTML page, not a feed"
        ),
        ("application/rss+xml", "{\"items\": [{\"id\": 1}]}", "but the body is JSON"),
        (
            "text/xml",
            "<!DOCTYPE rss [<!ENTITY a \"b\">]><rss><channel><item><title>&a;</title></item></channel></rss>",
            "declares XML entities"
        ),
        (
            "text/xml",
            "<!DOCTYPE rss SYSTEM \"file:///etc/passwd\"><rss><channel><item><title>t</title></item></channel></rss>",
            "names a non-web DTD (file:), an XXE attempt"
        ),
        (
            "text/xml",
            "<rss version=\"2.0\"><channel><title>Only a channel</title><item></item></channel></rss>",
            "has no items with a title or text"
        ),
        ("text/xml", "<<<< not a feed", "body is not XML"),
    ])
    func stillRefused(type: String, body: String, reason: String) {
        #expect {
            try FeedDocument.parse(Data(body.utf8), contentType: type, base: Self.base)
        } throws: { error in
            (error as? UpstreamError)?.message.contains(reason) == true
        }
    }
}
