import Testing

@testable import HTTPServer

@Suite("Accept: HTML or JSON")
struct AcceptHeaderTests {
    @Test(
        arguments: [
            (nil, false),
            ("", false),
            ("*/*", false),
            ("application/json", false),
            ("text/html", true),
            ("TEXT/HTML", true),
            ("text/html, application/json", true),
            ("text/html;q=0.5, application/json", false),
            ("application/json;q=0.5, text/html", true),
            ("text/html;q=0", false),
            ("application/xhtml+xml", false),
            ("text/hhtml, text/html", true),
            ("text/htm", false),
        ] as [(String?, Bool)])
    func prefersHTMLOnlyWhenHTMLRanksAtLeastAsHighAsJSON(header: String?, expected: Bool) {
        #expect(AcceptHeader.prefersHTML(header) == expected)
    }
}
