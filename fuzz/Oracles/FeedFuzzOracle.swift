// The feed fuzz oracle and its regression tests, in one file so both run the same logic.
//
// It lives under fuzz/Oracles/. The fuzz package (fuzz/Package.swift) compiles it into its
// fuzz-feed target through a symlink (fuzz/Sources/FuzzFeed/FeedFuzzOracle.swift) with `FUZZING`
// defined; there only `FeedFuzzOracle` exists. FeedParsingTests compiles it through
// Tests/FeedParsingTests/FeedFuzzOracle.swift, where the suite at the bottom replays every file
// in fuzz/corpus/feed/ and fuzz/regressions/feed/ through the same oracle.

import Feed
import FeedParsing
import Foundation
import HTTPClient

#if !FUZZING
    import Testing
#endif

/// Drives `FeedDocument.read` (every format, sniffed or declared) and `PlainText` with arbitrary
/// bytes and checks what must hold for every input. Only public API is used.
enum FeedFuzzOracle {
    /// An invariant that did not hold; the fuzz target traps on it, the tests record it.
    struct Violation: Error, CustomStringConvertible {
        let description: String

        init(_ description: String) {
            self.description = description
        }
    }

    /// The first input byte picks one of these as the `Content-Type`; the rest is the body.
    static let contentTypes: [String?] = [
        nil, "application/rss+xml", "application/atom+xml", "text/xml; charset=ISO-8859-1",
        "application/feed+json", "text/xml; charset=windows-1252", "application/xml; charset=utf-8",
        "text/html", "application/rdf+xml", "text/plain",
    ]

    static let base = URL(string: "https://fuzz.example.net/feeds/feed.xml")!

    /// Parses `bytes` as a feed and its text as HTML, checking every result.
    static func exercise(_ bytes: [UInt8]) throws(Violation) {
        guard let selector = bytes.first else { return }
        let type = contentTypes[Int(selector) % contentTypes.count]
        let body = Data(bytes.dropFirst())
        do {
            let reading = try FeedDocument.read(body, contentType: type, base: base)
            try check(reading)
        } catch let error as UpstreamError {
            if error.message.isEmpty || error.message.count > 2_000 {
                throw Violation("an error message of \(error.message.count) characters")
            }
        } catch let violation as Violation {
            throw violation
        } catch {
            throw Violation("an unexpected error type: \(error)")
        }
        let html = String(decoding: body, as: UTF8.self)
        let title = PlainText.read(html: html, limit: 500, oneLine: true)
        if title.text.count > 500 || title.text.contains("\n") || title.text != title.text.trimmed {
            throw Violation("a long, multi-line or untrimmed title reading: \(title.text.debugDescription)")
        }
        let text = PlainText.read(html: html, limit: 10_000)
        if text.text.count > 10_000 || text.text.contains("\n\n") || text.text != text.text.trimmed {
            throw Violation("a body reading that is long, has blank lines or is untrimmed")
        }
    }

    /// What every parsed feed must satisfy: the store's limits, and only http(s) URLs.
    static func check(_ reading: FeedReading) throws(Violation) {
        if reading.entries.isEmpty { throw Violation("a reading without entries") }
        if let recovered = reading.recovered, recovered.isEmpty || recovered.count > 2_000 {
            throw Violation("a recovery note of \(recovered.count) characters")
        }
        for entry in reading.entries {
            if entry.id.isEmpty || entry.id.count > FeedItem.maxIDLength {
                throw Violation("an id of \(entry.id.count) characters")
            }
            if entry.title.isEmpty || entry.title.count > 500 || entry.title.contains("\n") {
                throw Violation("a bad title: \(entry.title.debugDescription)")
            }
            if entry.body.count > 10_000 { throw Violation("a body of \(entry.body.count) characters") }
            for url in [entry.url, entry.image].compactMap({ $0 }) where !ItemLink.isSafe(url) {
                throw Violation("an unsafe URL: \(url)")
            }
        }
    }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}

#if !FUZZING
    @Suite("Feed fuzz corpus and crash regressions replayed through the fuzz oracle")
    struct FeedFuzzTests {
        static let fuzzFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("fuzz")

        /// `fuzz/corpus/feed/*` and `fuzz/regressions/feed/*`, as repository-relative names.
        static func inputs() -> [String] {
            ["corpus", "regressions"].flatMap { kind -> [String] in
                let folder = fuzzFolder.appendingPathComponent(kind).appendingPathComponent("feed")
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
                return names.filter { !$0.hasPrefix(".") }.sorted().map { "\(kind)/feed/\($0)" }
            }
        }

        @Test func theCorpusIsPresent() {
            #expect(Self.inputs().count >= 20)
        }

        @Test(arguments: inputs())
        func feedInput(_ name: String) throws {
            let input = try Data(contentsOf: Self.fuzzFolder.appendingPathComponent(name))
            try FeedFuzzOracle.exercise([UInt8](input))
        }
    }
#endif
