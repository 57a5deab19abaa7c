import Foundation
import HTTPClient
import TestSupport
import Testing

@testable import FeedParsing

/// Bytes → entries, without sockets: each format with real-world oddities, and hostile XML.
@Suite("Parsing feeds")
struct FeedDocumentTests {
    static let base = URL(string: "https://feeds.example.net/dir/feed")!

    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: UpstreamServer.fixtures.appendingPathComponent(name))
    }

    static func parse(_ name: String, type: String?) throws -> [UpstreamEntry] {
        try FeedDocument.parse(try fixture(name), contentType: type, base: base)
    }

    static func date(_ text: String) -> Date { FeedDate.rfc3339(text)! }

    @Test func rss() throws {
        let entries = try Self.parse("rss.xml", type: "application/rss+xml")
        #expect(
            entries.map(\.id) == [
                "tag:harbour,2026:ferry", "https://example.org/bakery", "https://example.org/notice",
                "js-link",
            ])
        // CDATA with markup in the title; HTML escaped in the description, script dropped.
        #expect(entries[0].title == "Ferry schedule & fares")
        #expect(entries[0].body == "The ferry leaves at 8 am & returns at noon.")
        #expect(entries[0].url == "https://feeds.example.net/news/ferry")  // relative link resolved
        #expect(entries[0].date == Self.date("2003-06-10T04:00:00Z"))
        #expect(entries[1].body == "Fresh bread… every night")
        #expect(entries[1].date == Self.date("2003-06-09T20:30:00Z"))  // no weekday, no seconds, +0200
        #expect(entries[2].date == nil)
        #expect(entries[2].url == "https://example.org/notice")  // a permalink guid
        #expect(entries[3].url == nil)  // javascript: is never a link
        #expect(entries[3].date == Self.date("2003-06-08T15:00:00Z"))  // two-digit year, EST
    }

    @Test func atom() throws {
        let entries = try Self.parse("atom.xml", type: "application/atom+xml")
        #expect(entries.count == 3)
        #expect(entries[0].id == "urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a")
        #expect(entries[0].title == "Clear skies & Jupiter")
        #expect(entries[0].url == "https://feeds.example.net/dir/entries/jupiter")  // rel=alternate, not edit
        #expect(entries[0].body == "Four moons visible & one shadow.")
        #expect(entries[0].date == Self.date("2026-01-02T08:30:00.5Z"))  // published wins over updated
        #expect(entries[1].body == "Dome closed today.")  // xhtml content: its text
        #expect(entries[1].date == Self.date("2026-01-01T08:00:00Z"))
        #expect(entries[2].date == nil)
        #expect(entries[2].body == "Keeps its place.")
    }

    @Test func jsonFeed() throws {
        let entries = try Self.parse("feed.json", type: "application/feed+json")
        #expect(entries.map(\.id) == ["2", "1", "undated", "bad-link"])
        #expect(entries[0].url == "https://feeds.example.net/books/new")
        #expect(entries[0].body == "Forty new titles & a map.")
        #expect(entries[1].title == "Opening hours changed today.")  // no title: the start of the text
        #expect(entries[1].url == "https://example.org/hours")
        #expect(entries[1].date == Self.date("2026-01-02T17:00:00Z"))
        #expect(entries[2].date == nil)
        #expect(entries[3].url == nil)  // data: URLs are dropped
        // image (resolved), else banner_image; never a script URL.
        #expect(
            entries.map(\.image) == [
                "https://feeds.example.net/covers/new.jpg", "https://example.org/banner.png", nil, nil,
            ])
    }

    @Test func latin1RSSFromTheProlog() throws {
        let entries = try Self.parse("latin1.xml", type: "application/rss+xml; charset=ISO-8859-1")
        #expect(entries.count == 1)
        #expect(entries[0].title == "Crème brûlée à la carte")
        #expect(entries[0].body == "Straße été © 2026")
        #expect(entries[0].date == Self.date("2026-01-05T06:05:09Z"))
    }

    @Test func ourOwnJSONShape() throws {
        let data = Data(
            #"{"items":[{"id":7,"title":"Seven","createdAt":"2026-01-01T00:00:00Z","url":"https://e.org/7"},{"id":"x/y","title":"Why","body":"b","createdAt":"2026-01-02T00:00:00Z"}]}"#
                .utf8)
        let entries = try FeedDocument.parse(data, contentType: "application/json", base: Self.base)
        #expect(entries.map(\.id) == ["x/y", "7"])
        #expect(entries[1].url == "https://e.org/7")
    }

    @Test func textIsTrimmedToTheStoreLimits() throws {
        let title = String(repeating: "t", count: 700)
        let body = String(repeating: "b ", count: 8000)
        let xml = """
            <rss version="2.0"><channel><item><title>\(title)</title><guid>\(String(repeating: "g", count: 300))</guid>\
            <description>\(body)</description></item></channel></rss>
            """
        let entries = try FeedDocument.parse(Data(xml.utf8), contentType: "text/xml", base: Self.base)
        #expect(entries[0].title.count == 500)
        #expect(entries[0].body.count <= 10_000)
        #expect(entries[0].body.count > 9_990)
        #expect(entries[0].id.count == 256)
    }

    @Test(arguments: [
        ("text/html", "<html><body>Sign in</body></html>", "text/html, not a feed"),
        ("application/json", "<rss/>", "but the body is XML"),
        ("application/rss+xml", "{\"items\": []}", "but the body is JSON"),
        ("application/rss+xml", "", "empty body"),
        ("application/rss+xml", "<<<!>", "body is not XML"),
        ("application/xml", "<opml version=\"2.0\"><body/></opml>", "neither RSS nor Atom (root <opml>)"),
        ("application/xml", "<html><body>hi</body></html>", "an HTML page, not a feed"),
        ("application/json", "{\"version\": \"https://jsonfeed.org/version/1.1\"}", "no \"items\" array"),
        ("application/json", "[1, 2]", "must be an object"),
        (
            "application/rss+xml", "<rss version=\"2.0\"><channel><title>T</title></channel></rss>",
            "has no items"
        ),
        (
            "application/feed+json", "{\"version\": \"https://jsonfeed.org/version/1.1\", \"items\": [{}]}",
            "has no items"
        ),
    ])
    func wrongOrBrokenDocumentsAreRefusedWithAReason(type: String, body: String, reason: String) {
        #expect {
            try FeedDocument.parse(Data(body.utf8), contentType: type, base: Self.base)
        } throws: { error in
            (error as? UpstreamError)?.message.contains(reason) == true
        }
    }

    /// RSS 0.91 files name the Netscape DTD; it is never fetched, and the feed still parses.
    @Test func aDoctypeWithoutEntitiesIsFine() throws {
        let xml = """
            <?xml version="1.0" encoding="ISO-8859-1"?>
            <!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN"
              "http://my.netscape.com/publish/formats/rss-0.91.dtd">
            <rss version="0.91"><channel><title>Old</title>
            <item><title>Still read</title><link>http://example.org/old</link></item></channel></rss>
            """
        let entries = try FeedDocument.parse(Data(xml.utf8), contentType: "text/xml", base: Self.base)
        #expect(entries.map(\.title) == ["Still read"])
        #expect(entries.map(\.id) == ["http://example.org/old"])
    }

    @Test func billionLaughsIsRefusedBeforeExpansion() throws {
        var lines = ["<?xml version=\"1.0\"?>", "<!DOCTYPE rss [", "<!ENTITY lol \"lol\">"]
        for level in 1...9 {
            let previous = level == 1 ? "&lol;" : "&lol\(level - 1);"
            lines.append("<!ENTITY lol\(level) \"\(String(repeating: previous, count: 10))\">")
        }
        lines.append("]><rss version=\"2.0\"><channel><item><title>&lol9;</title></item></channel></rss>")
        #expect {
            try FeedDocument.parse(
                Data(lines.joined(separator: "\n").utf8), contentType: "text/xml", base: Self.base)
        } throws: { error in
            (error as? UpstreamError)?.message.contains("declares XML entities") == true
        }
    }

    @Test func externalEntitiesNeverReadTheFile() throws {
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pullrefresh-secret-\(UUID())")
        let marker = "SECRET-\(UUID().uuidString)"
        try marker.write(to: secret, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: secret) }
        let documents = [
            // An entity with a SYSTEM identifier.
            """
            <?xml version="1.0"?><!DOCTYPE rss [<!ENTITY secret SYSTEM "file://\(secret.path)">]>
            <rss version="2.0"><channel><item><title>&secret;</title><guid>x</guid></item></channel></rss>
            """,
            // An external DTD that would declare the entity, were it loaded.
            """
            <?xml version="1.0"?><!DOCTYPE rss SYSTEM "file://\(secret.path)">
            <rss version="2.0"><channel><item><title>T &secret;</title><guid>x</guid></item></channel></rss>
            """,
            // A parameter entity.
            """
            <?xml version="1.0"?><!DOCTYPE rss [<!ENTITY % p SYSTEM "file://\(secret.path)"> %p;]>
            <rss version="2.0"><channel><item><title>T</title><guid>x</guid></item></channel></rss>
            """,
        ]
        for document in documents {
            do {
                let entries = try FeedDocument.parse(
                    Data(document.utf8), contentType: "text/xml", base: Self.base)
                #expect(!entries.contains { $0.title.contains(marker) || $0.body.contains(marker) })
            } catch {
                #expect(!error.message.contains(marker))
            }
        }
    }
}
