import Foundation
import Mustache
import Testing

@Suite("JSON contexts")
struct JSONTests {
    @Test func booleans_are_not_numbers() throws {
        let value = try MustacheValue(json: #"{"t": true, "f": false, "one": 1, "zero": 0}"#)
        #expect(value["t"] == .bool(true))
        #expect(value["f"] == .bool(false))
        #expect(value["one"] == .number(MustacheNumber(1)))
        #expect(value["zero"] == .number(MustacheNumber(0)))
        let template = try MustacheTemplate(
            string: "{{t}} {{f}} {{one}} {{zero}} {{#f}}F{{/f}}{{^f}}!F{{/f}} {{#zero}}Z{{/zero}}")
        #expect(template.render(value) == "true false 1 0 !F Z")
    }

    @Test func booleans_from_data_are_not_numbers() throws {
        let value = try MustacheValue(json: Data("[true, 1, false, 0]".utf8))
        #expect(value == [true, 1, false, 0])
    }

    @Test func numbers_keep_their_written_form() throws {
        let value = try MustacheValue(json: "[1.50, 1.210, -0, 6.02e23, 1E-7, 12345678901234567890123]")
        let template = try MustacheTemplate(string: "{{#.}}{{.}}|{{/.}}")
        #expect(template.render(value) == "1.50|1.210|-0|6.02e23|1E-7|12345678901234567890123|")
    }

    @Test func any_top_level_value() throws {
        #expect(try MustacheValue(json: #""text""#) == "text")
        #expect(try MustacheValue(json: " 42 ") == 42)
        #expect(try MustacheValue(json: "null") == nil)
        #expect(try MustacheValue(json: "true") == true)
        #expect(try MustacheValue(json: "[]") == [])
        #expect(try MustacheValue(json: "{}") == [:])
    }

    @Test func string_escapes_and_unicode() throws {
        let value = try MustacheValue(json: #""a\"b\\c\/d\n\t\u00e9\ud83d\ude00 ñ""#)
        #expect(value == "a\"b\\c/d\n\té😀 ñ")
    }

    @Test func byte_order_mark_is_ignored() throws {
        let data = Data([0xEF, 0xBB, 0xBF] + Array(#"{"a":1}"#.utf8))
        #expect(try MustacheValue(json: data) == ["a": 1])
    }

    @Test(
        "invalid documents report line and column",
        arguments: [
            ("{\"a\": 1,\n  \"b\": }", 2, 8),
            ("[1, 2", 1, 6),
            ("{\"a\" 1}", 1, 6),
            ("[01]", 1, 3),
            ("[1.]", 1, 2),
            ("\"unterminated", 1, 1),
            ("[tru]", 1, 2),
            ("{} {}", 1, 4),
            ("\"bad \\x escape\"", 1, 6),
            ("\"\\ud800 alone\"", 1, 8),
            ("", 1, 1),
        ])
    func invalidDocument(source: String, line: Int, column: Int) {
        #expect {
            try MustacheValue(json: source)
        } throws: { error in
            guard let error = error as? MustacheError else { return false }
            return error.kind == .invalidJSON && error.line == line && error.column == column
        }
    }

    @Test func deep_nesting_is_rejected_without_crashing() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: MustacheError.self) {
            try MustacheValue(json: deep)
        }
    }

    @Test func number_text_validation() {
        #expect(MustacheNumber(text: "1.50")?.text == "1.50")
        #expect(MustacheNumber(text: "-0.5e+3") != nil)
        #expect(MustacheNumber(text: "1.") == nil)
        #expect(MustacheNumber(text: "abc") == nil)
        #expect(MustacheNumber(text: "") == nil)
        #expect(MustacheNumber(2.5)?.text == "2.5")
        #expect(MustacheNumber(Double.nan) == nil)
    }

    @Test func values_encode_back_to_json() throws {
        let value: MustacheValue = ["a": [1, "two", true, nil], "b": ["c": 2.5]]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = try encoder.encode(value)
        #expect(try MustacheValue(json: json) == value)
    }
}
