import Foundation
import HTTPClient
import TestSupport
import Testing

@testable import FeedParsing

/// The last classes of real-world feeds that read wrong (issue 31), each a document in
/// Fixtures/lenient/: code in titles, base64 text in Atom 1.0, `&#X..;`, items without a title,
/// relative permalinks.
@Suite("Feed oddities")
struct FeedOddityTests {
    static func read(_ name: String, type: String? = "application/rss+xml") throws -> FeedReading {
        try LenientFeedTests.read(name, type: type)
    }

    @Test func scriptStyleFramesAndObjectsAddNoText() throws {
        let entries = try Self.read("script-title.xml").entries
        #expect(entries.map(\.title) == ["safe description", "Styled title"])
        #expect(entries[0].body == "Before.\nAfter.")
        #expect(entries[1].body == "Plain bold")
    }

    @Test(arguments: ["script", "style", "noscript", "template", "iframe", "object"])
    func anElementWhoseContentsAreNotText(element: String) {
        let html = "<p>one</p><\(element)>hidden words</\(element)><p>two</p>"
        #expect(PlainText.from(html: html, limit: 100) == "one\ntwo")
        #expect(
            PlainText.read(html: "a <\(element)>hidden</\(element)> b", limit: 100, oneLine: true).text
                == "a b")
    }

    @Test func hiddenElementsNestedBeyondTheTrackedDepthStayHidden() {
        // 300 open <object>s (the scanner tracks 256, so that each end tag's search is short),
        // then end tags of another hidden element: nothing after the first <object> shows.
        let html =
            "<p>shown</p>" + String(repeating: "<object>", count: 300) + "<p>in</p>"
            + String(repeating: "</iframe>", count: 300) + "hidden"
        #expect(PlainText.from(html: html, limit: 100) == "shown")
        let closed = "<object><object>x</object>y</object>z"
        #expect(PlainText.from(html: closed, limit: 100) == "z")
    }

    @Test func aPictureInsideAHiddenElementIsNotTheFirstPicture() {
        let html = "<noscript><img src=\"a.png\"></noscript><p>text</p><img src=\"b.png?w=1&amp;h=2\">"
        let reading = PlainText.read(html: html, limit: 100)
        #expect(reading.firstImage == "b.png?w=1&h=2")
        #expect(reading.text == "text")
    }

    @Test func atom10TextInBase64ModeIsDecoded() throws {
        let reading = try Self.read("atom10-base64.xml", type: "application/atom+xml")
        #expect(reading.recovered == nil)
        #expect(reading.entries.map(\.title) == ["Über den Mond – Teil 2", "Sterne im Winter"])
        #expect(reading.entries[0].body == "Der Mond & die Sterne.")
        #expect(reading.entries[0].url == "https://stars.example.org/2026/mond-2")
    }

    @Test func upperCaseHexadecimalReferencesAreDecoded() throws {
        let reading = try Self.read("upper-hex-reference.xml")
        let entry = try #require(reading.entries.first)
        #expect(entry.title == "ABC \u{2014} the alphabet\u{2019}s start")
        #expect(entry.url == "https://letters.example.org/abc?a=1&b=2")
        #expect(entry.body == "Capital X, small x, decimal A: all three.")
        #expect(reading.hints.title == "Letters & Numbers")
        #expect(reading.recovered == "lower-cased 5 \"&#X\" references", "\(reading.recovered ?? "nil")")
        // In HTML text as well (an escaped reference inside a description).
        #expect(PlainText.from(html: "&#X41;&#x42;&#67;", limit: 10) == "ABC")
    }

    @Test func itemsWithoutATitleAreShown() throws {
        let entries = try Self.read("titleless.xml").entries
        #expect(
            entries.map(\.title) == [
                "Forest at dawn.mp3", "river-42.mp3", "2026-12-01 13:30 UTC",
                "A note without a title: the heron came back today.",
            ])
        #expect(
            entries.map(\.id) == [
                "field-43", "https://feeds.example.net/audio/river-42.mp3", "field-photo-7", "field-note-9",
            ])
        #expect(entries[0].date == LenientFeedTests.date("2026-12-03T06:00:00Z"))
        #expect(entries[2].image == "https://field.example.org/img/heron.jpg")
        #expect(entries.allSatisfy { $0.url == nil })
    }

    @Test func aFeedOfTitlelessEpisodesIsNotRefused() throws {
        let text = """
            <rss version="2.0"><channel><title>Minutes</title>
            <item><enclosure url="https://audio.example.org/2026-12-01.ogg" type="audio/ogg"/>\
            <pubDate>Tue, 01 Dec 2026 19:00:00 GMT</pubDate></item>
            <item><enclosure url="https://audio.example.org/2026-11-24.ogg" type="audio/ogg"/>\
            <pubDate>Tue, 24 Nov 2026 19:00:00 GMT</pubDate></item>
            </channel></rss>
            """
        let entries = try FeedDocument.parse(Data(text.utf8), contentType: nil, base: LenientFeedTests.base)
        #expect(entries.map(\.title) == ["2026-12-01.ogg", "2026-11-24.ogg"])
        #expect(
            entries.map(\.id) == [
                "https://audio.example.org/2026-12-01.ogg", "https://audio.example.org/2026-11-24.ogg",
            ])
    }

    @Test func aRelativePermalinkIsResolvedAgainstTheFeed() throws {
        let entries = try Self.read("relative-permalink.xml").entries
        #expect(
            entries.map(\.url) == [
                "https://feeds.example.net/blog/2026/12/market-day",
                "https://feeds.example.net/dir/library-hours.html",
                nil,  // no isPermaLink attribute: a bare GUID, not a path
                nil,  // resolved, but not http(s)
            ])
        #expect(
            entries.map(\.id) == [
                "/blog/2026/12/market-day", "library-hours.html", "snow-plan-2026", "javascript:alert(1)",
            ])
    }
}
