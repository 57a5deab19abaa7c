import Mustache
import Testing

@Suite("Rendering")
struct RenderingTests {
    @Test func list_of_one_thousand_items() throws {
        let template = try MustacheTemplate(
            string: "<ul>\n{{#items}}\n  <li id=\"{{id}}\">{{title}}</li>\n{{/items}}\n</ul>\n")
        let items = (1...1_000).map { index -> MustacheValue in
            ["id": .number(MustacheNumber(index)), "title": .string("Item \(index) <\(index % 7)>")]
        }
        let output = template.render(["items": .list(items)])
        let rows = output.split(separator: "\n").filter { $0.hasPrefix("  <li ") }
        #expect(rows.count == 1_000)
        #expect(rows.first == "  <li id=\"1\">Item 1 &lt;1&gt;</li>")
        #expect(rows.last == "  <li id=\"1000\">Item 1000 &lt;6&gt;</li>")
        #expect(output.hasPrefix("<ul>\n  <li id=\"1\">"))
        #expect(output.hasSuffix("</li>\n</ul>\n"))
    }

    @Test func same_template_renders_different_contexts() throws {
        let template = try MustacheTemplate(string: "Hi {{name}}")
        #expect(template.render(["name": "A"]) == "Hi A")
        #expect(template.render(["name": "B"]) == "Hi B")
    }

    @Test func truthiness_rules() throws {
        let template = try MustacheTemplate(string: "{{#v}}yes{{/v}}{{^v}}no{{/v}}")
        let cases: [(MustacheValue, String)] = [
            (false, "no"), (nil, "no"), ([], "no"), ("", "no"),
            (true, "yes"), (0, "yes"), ("0", "yes"), ([:], "yes"), ([1], "yes"),
        ]
        for (value, expected) in cases {
            #expect(template.render(["v": value]) == expected, "value: \(value)")
        }
        #expect(template.render([:]) == "no")
    }

    @Test func dotted_names_do_not_fall_back_after_the_first_part() throws {
        let template = try MustacheTemplate(string: "{{#a}}[{{b.c}}]{{/a}}")
        #expect(template.render(["a": ["b": [:]], "b": ["c": "ERROR"]]) == "[]")
    }

    @Test func nested_standalone_partials_accumulate_indentation() throws {
        let partials = [
            "outer": try MustacheTemplate(string: "<div>\n  {{>inner}}\n</div>\n"),
            "inner": try MustacheTemplate(string: "<p>\n{{text}}\n</p>\n"),
        ]
        let template = try MustacheTemplate(string: "<body>\n  {{>outer}}\n</body>\n")
        let output = template.render(["text": "a\nb"], partials: partials)
        // Indentation applies to template lines, never to lines inside data.
        #expect(output == "<body>\n  <div>\n    <p>\n    a\nb\n    </p>\n  </div>\n</body>\n")
    }

    @Test func inline_partials_are_not_indented() throws {
        let partials = ["p": try MustacheTemplate(string: "1\n2")]
        let template = try MustacheTemplate(string: "  x {{>p}}\n")
        #expect(template.render([:], partials: partials) == "  x 1\n2\n")
    }

    @Test func blocks_reindent_override_content() throws {
        let layout = try MustacheTemplate(
            string: "<main>\n    {{$body}}\n    default\n    {{/body}}\n</main>\n")
        let page = try MustacheTemplate(
            string: "{{<layout}}\n{{$body}}\n<h1>{{title}}</h1>\n<p>x</p>\n{{/body}}\n{{/layout}}\n")
        let output = page.render(["title": "T"], partials: ["layout": layout])
        #expect(output == "<main>\n    <h1>T</h1>\n    <p>x</p>\n</main>\n")
        #expect(layout.render([:]) == "<main>\n    default\n</main>\n")
    }

    @Test func dynamic_parent() throws {
        let partials = [
            "wide": try MustacheTemplate(string: "W[{{$x}}{{/x}}]"),
            "narrow": try MustacheTemplate(string: "N[{{$x}}{{/x}}]"),
        ]
        let template = try MustacheTemplate(string: "{{<*layout}}{{$x}}{{v}}{{/x}}{{/*layout}}")
        #expect(template.render(["layout": "wide", "v": 1], partials: partials) == "W[1]")
        #expect(template.render(["layout": "narrow", "v": 2], partials: partials) == "N[2]")
        #expect(template.render(["layout": "none"], partials: partials) == "")
    }

    @Test func crlf_templates() throws {
        let template = try MustacheTemplate(string: "a\r\n{{#x}}\r\nb\r\n{{/x}}\r\nc")
        #expect(template.render(["x": true]) == "a\r\nb\r\nc")
    }

    @Test func lists_and_objects_interpolate_as_empty() throws {
        let template = try MustacheTemplate(string: "[{{list}}][{{object}}]")
        #expect(template.render(["list": [1, 2], "object": ["a": 1]]) == "[][]")
    }
}
