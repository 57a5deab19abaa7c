import Testing

@testable import FeedParsing

@Suite("HTML to plain text")
struct PlainTextTests {
    @Test(arguments: [
        ("<p>One</p><p>Two</p>", "One\nTwo"),
        ("a &amp; b &lt;c&gt; &#39;d&#x27; &quot;e&quot;", "a & b <c> 'd' \"e\""),
        ("<script>alert('x')</script>Safe<style>p{}</style>", "Safe"),
        ("<!-- hidden -->Shown", "Shown"),
        ("Fish &chips; AT&T &eacute;&#233;", "Fish &chips; AT&T éé"),  // unknown or bare: left as text
        ("  spaced \t out  ", "spaced out"),
        ("one<br>two<div>three</div>four", "one\ntwo\nthree\nfour"),
        ("<a href=\"javascript:alert(1)\">link</a> text", "link text"),
        ("unclosed <b", "unclosed"),
    ])
    func converts(html: String, text: String) {
        #expect(PlainText.from(html: html, limit: 100) == text)
    }

    @Test func cutsAtTheLimit() {
        #expect(PlainText.from(html: "<b>héllo</b> wörld", limit: 7) == "héllo w")
    }
}
