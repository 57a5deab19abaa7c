import Mustache
import Testing

@Suite("Syntax errors report positions")
struct ErrorPositionTests {
    private func parseError(_ source: String, name: String? = "page") -> MustacheError? {
        do {
            _ = try MustacheTemplate(string: source, name: name)
            return nil
        } catch {
            return error
        }
    }

    @Test func unclosed_section_points_at_its_opening_tag() throws {
        let source = """
            <ul>
            {{#items}}
              <li>{{name}}</li>
            </ul>
            """
        let error = try #require(parseError(source))
        #expect(error.kind == .syntax)
        #expect(error.line == 2)
        #expect(error.column == 1)
        #expect(error.templateName == "page")
        #expect(error.description == "page:2:1: unclosed section 'items'")
    }

    @Test func unclosed_inner_section_is_reported_not_the_outer_one() throws {
        let source = "{{#a}}\n  x {{^b}}\ny\n{{/a}}"
        let error = try #require(parseError(source))
        #expect(error.line == 4)
        #expect(error.column == 1)
        #expect(error.message.contains("closing tag 'a' does not match inverted section 'b'"))
        #expect(error.message.contains("line 2, column 5"))
    }

    @Test func mismatched_closing_tag() throws {
        let source = "line one\n  {{#items}}\n    {{name}}\n  {{/itemz}}\n"
        let error = try #require(parseError(source))
        #expect(error.line == 4)
        #expect(error.column == 3)
        #expect(error.description.hasPrefix("page:4:3: closing tag 'itemz' does not match section 'items'"))
    }

    @Test func closing_tag_without_section() throws {
        let error = try #require(parseError("a\nb {{/x}}"))
        #expect(error.line == 2)
        #expect(error.column == 3)
        #expect(error.message.contains("unexpected closing tag 'x'"))
    }

    @Test func unclosed_tag_points_at_its_opening_delimiter() throws {
        let error = try #require(parseError("first\nsecond {{name\nthird"))
        #expect(error.line == 2)
        #expect(error.column == 8)
        #expect(error.message == "unclosed tag: expected '}}'")
    }

    @Test func unclosed_triple_mustache() throws {
        let error = try #require(parseError("x\n\n  {{{raw}}"))
        #expect(error.line == 3)
        #expect(error.column == 3)
        #expect(error.message == "unclosed tag: expected '}}}'")
    }

    @Test func bad_delimiters() throws {
        let single = try #require(parseError("ok\n{{=<%=}}"))
        #expect(single.line == 2)
        #expect(single.column == 1)
        #expect(single.message.hasPrefix("invalid delimiters '<%'"))

        let withEquals = try #require(parseError("a {{=<= =>=}}"))
        #expect(withEquals.column == 3)

        let unterminated = try #require(parseError("one\ntwo\n\t{{=<% %>}}"))
        #expect(unterminated.line == 3)
        #expect(unterminated.column == 2)
        #expect(unterminated.message == "unclosed tag: expected '=}}'")
    }

    @Test func errors_after_a_delimiter_change_use_the_new_delimiters() throws {
        let error = try #require(parseError("{{=<% %>=}}\n<%#list%>\n<%name"))
        #expect(error.line == 3)
        #expect(error.column == 1)
        #expect(error.message == "unclosed tag: expected '%>'")
    }

    @Test func empty_tags_and_names_with_spaces() throws {
        let empty = try #require(parseError("a\n  {{ }}"))
        #expect(empty.line == 2)
        #expect(empty.column == 3)
        #expect(empty.message == "empty tag")

        let spaced = try #require(parseError("{{#first name}}{{/first name}}"))
        #expect(spaced.column == 1)
        #expect(spaced.message.contains("cannot contain whitespace"))
    }

    @Test func columns_count_characters_not_bytes() throws {
        let error = try #require(parseError("héllo 👋 {{#x}}"))
        #expect(error.line == 1)
        #expect(error.column == 9)
    }

    @Test func unnamed_template_has_position_only() throws {
        let error = try #require(parseError("{{#x}}", name: nil))
        #expect(error.description == "1:1: unclosed section 'x'")
    }
}
