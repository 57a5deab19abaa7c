import Mustache
import Testing

@Suite("HTML escaping")
struct EscapingTests {
    private func render(_ template: String, _ value: String) throws -> String {
        try MustacheTemplate(string: template).render(["value": .string(value)])
    }

    @Test(
        "each special character is escaped",
        arguments: [
            ("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("\"", "&quot;"), ("'", "&#39;"),
        ])
    func specialCharacter(input: String, expected: String) throws {
        #expect(try render("[{{value}}]", input) == "[\(expected)]")
        #expect(try render("[{{value}}]", "a\(input)b") == "[a\(expected)b]")
    }

    @Test func triple_mustache_and_ampersand_do_not_escape() throws {
        let hostile = "<b>&\"'</b>"
        #expect(try render("{{{value}}}", hostile) == hostile)
        #expect(try render("{{&value}}", hostile) == hostile)
    }

    @Test func script_tag_is_neutralised() throws {
        let output = try render("<p>{{value}}</p>", "<script>alert('x')</script>")
        #expect(output == "<p>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;</p>")
        #expect(!output.contains("<script"))
    }

    @Test func attribute_breakout_is_neutralised() throws {
        let output = try render("<a title=\"{{value}}\">", "\" onmouseover=\"evil()")
        #expect(output == "<a title=\"&quot; onmouseover=&quot;evil()\">")
    }

    @Test func mustache_syntax_in_data_is_not_interpreted() throws {
        let template = try MustacheTemplate(string: "{{value}}|{{{value}}}")
        let output = template.render(["value": "{{secret}} {{>partial}}", "secret": "LEAK"])
        #expect(output == "{{secret}} {{&gt;partial}}|{{secret}} {{>partial}}")
    }

    @Test func already_escaped_text_is_escaped_again() throws {
        #expect(try render("{{value}}", "&amp;") == "&amp;amp;")
    }

    @Test func emoji_and_combining_characters_pass_through() throws {
        let text = "👩‍👩‍👧 café 🇳🇱 e\u{301}"
        #expect(try render("{{value}}", text) == text)
        #expect(try render("{{value}}", "<\(text)>") == "&lt;\(text)&gt;")
    }

    @Test func right_to_left_text_passes_through() throws {
        let hebrew = "שלום עולם"
        let arabic = "مرحبا \u{200F}بالعالم"
        #expect(try render("<p dir=\"rtl\">{{value}}</p>", hebrew) == "<p dir=\"rtl\">\(hebrew)</p>")
        #expect(try render("{{value}}", "\(arabic) & <b>") == "\(arabic) &amp; &lt;b&gt;")
    }

    @Test func long_text_with_many_specials() throws {
        let input = String(repeating: "a<b>&'\"", count: 1_000)
        let expected = String(repeating: "a&lt;b&gt;&amp;&#39;&quot;", count: 1_000)
        #expect(try render("{{value}}", input) == expected)
    }

    @Test func numbers_and_booleans_interpolate_verbatim() throws {
        let template = try MustacheTemplate(string: "{{n}} {{b}} {{z}}")
        #expect(template.render(["n": 3, "b": true, "z": nil]) == "3 true ")
    }
}
