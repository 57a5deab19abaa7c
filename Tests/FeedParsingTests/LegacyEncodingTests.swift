import Foundation
import HTTPClient
import TestSupport
import Testing

@testable import FeedParsing

/// Feeds in a legacy encoding that declare none, neither in the prolog nor in `Content-Type`
/// (issue 31): the encoding is detected and the real text shown; what is declared still wins.
/// The documents are in Tests/Fixtures/Upstreams/encodings/ (made by its make-fixtures.py).
@Suite("Undeclared legacy encodings")
struct LegacyEncodingTests {
    static let base = URL(string: "https://news.example.org/feed")!

    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: UpstreamServer.fixtures.appendingPathComponent("encodings/" + name))
    }

    @Test(arguments: [
        (
            "euc-jp.xml", "EUC-JP", "東京で桜が満開に", "地元の祭りに一万人",
            "今日は東京で桜が満開になりました。多くの人が上野公園を訪れ、花見を楽しんでいます。"
        ),
        (
            "shift_jis.xml", "WINDOWS-31J", "大阪城でコンサート", "たこ焼きの新店舗",
            "昨夜、大阪城の公園で野外コンサートが開かれ、約五千人の観客が集まりました。"
        ),
        (
            "euc-kr.xml", "UHC", "서울에서 큰 축제 열려", "한강 공원 새 단장",
            "오늘 서울 광장에서 큰 축제가 열렸습니다. 많은 시민들이 모여 음악을 듣고 공연을 보았습니다."
        ),
        ("gb2312.xml", "GB18030", "北京天气晴朗", "明天有小雨", "今天北京天气晴朗，许多市民来到公园散步，享受春天的阳光。"),
        (
            "koi8-r.xml", "KOI8-R", "В Москве прошёл фестиваль", "Парк Горького обновили",
            "Сегодня в Москве прошёл большой фестиваль. Тысячи людей пришли на площадь, чтобы послушать музыку."
        ),
    ])
    func isDetectedAndShown(file: String, encoding: String, first: String, last: String, body: String) throws
    {
        let reading = try FeedDocument.read(
            Self.fixture(file), contentType: "application/rss+xml", base: Self.base)
        let entries = reading.entries
        #expect(entries.count == 5)
        #expect(entries.first?.title == first)
        #expect(entries.last?.title == last)
        #expect(entries.first?.body == body)
        #expect(entries.first?.url == "https://news.example.org/1")
        #expect(entries.allSatisfy { !($0.title + $0.body).contains("\u{FFFD}") })
        #expect(reading.hints.title?.contains("\u{FFFD}") == false)
        #expect(
            reading.recovered == "no encoding declared and not UTF-8: read as \(encoding) (detected)",
            "\(reading.recovered ?? "nil")")
    }

    @Test func thePrologsDeclarationWins() throws {
        // EUC-JP bytes that say they are UTF-8: read as declared (invalid bytes become U+FFFD).
        var text = String(decoding: try Self.fixture("euc-jp.xml"), as: UTF8.self)
        text = text.replacingOccurrences(
            of: "<?xml version=\"1.0\"?>", with: "<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        let declared = Data(text.utf8)
        let reading = try FeedDocument.read(declared, contentType: nil, base: Self.base)
        #expect(reading.recovered?.contains("read as") != true, "\(reading.recovered ?? "nil")")
        #expect(
            reading.entries.first?.title.contains("\u{FFFD}") == true, "\(reading.entries.first?.title ?? "")"
        )
    }

    @Test func theContentTypeCharsetWins() throws {
        // Right: the header names it. Wrong: the header says ISO-8859-1, which wins too.
        let data = try Self.fixture("koi8-r.xml")
        let right = try FeedDocument.read(
            data, contentType: "application/rss+xml; charset=koi8-r", base: Self.base)
        #expect(right.entries.first?.title == "В Москве прошёл фестиваль")
        #expect(right.recovered == nil)
        let wrong = try FeedDocument.read(data, contentType: "text/xml; charset=iso-8859-1", base: Self.base)
        #expect(wrong.entries.first?.title != "В Москве прошёл фестиваль")
        #expect(wrong.recovered == nil)
    }

    @Test func aFewWesternBytesShowAsWritten() throws {
        // Three Windows-1252 bytes in English: uchardet names a Western code page (1250 or 1252,
        // which agree on these), and the page shows the curly quotes and the euro sign, not
        // replacement characters. (No answer at all is EncodingDetectionTests' fallback case.)
        let text =
            "<rss version=\"2.0\"><channel><item><title>Prices \u{201C}fall\u{201D} to 5\u{20AC}</title>"
            + "<description>Shops cut prices.</description></item></channel></rss>"
        let data = Data(
            text.unicodeScalars.map { scalar -> UInt8 in
                switch scalar {
                case "\u{201C}": 0x93
                case "\u{201D}": 0x94
                case "\u{20AC}": 0x80
                default: UInt8(scalar.value)
                }
            })
        let reading = try FeedDocument.read(data, contentType: nil, base: Self.base)
        #expect(reading.entries.first?.title == "Prices \u{201C}fall\u{201D} to 5\u{20AC}")
        #expect(
            reading.recovered?.hasPrefix("no encoding declared and not UTF-8: read as WINDOWS-125") == true)
    }

    @Test func validUTF8WithoutADeclarationIsNotDetected() throws {
        let text = "<rss version=\"2.0\"><channel><item><title>Café ☕ 東京</title></item></channel></rss>"
        let reading = try FeedDocument.read(Data(text.utf8), contentType: nil, base: Self.base)
        #expect(reading.entries.first?.title == "Café ☕ 東京")
        #expect(reading.recovered == nil)
    }
}
