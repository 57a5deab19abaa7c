import Foundation
import Mustache
import Testing

@Suite("Encodable contexts")
struct EncodingTests {
    struct Author: Encodable {
        let name: String
        let email: String?
    }

    struct Post: Encodable {
        let id: Int
        let title: String
        let score: Double
        let draft: Bool
        let tags: [String]
        let author: Author
        let subtitle: String?
        let rating: Int?
    }

    @Test func struct_with_nested_values() throws {
        let post = Post(
            id: 7, title: "Hello", score: 4.5, draft: false, tags: ["swift", "web"],
            author: Author(name: "Ada", email: nil), subtitle: nil, rating: 3)
        let value = try MustacheValue(encoding: post)
        let expected: MustacheValue = [
            "id": 7, "title": "Hello", "score": 4.5, "draft": false, "tags": ["swift", "web"],
            "author": ["name": "Ada", "email": nil], "subtitle": nil, "rating": 3,
        ]
        #expect(value == expected)
    }

    @Test func nil_optionals_are_null_not_missing() throws {
        struct Item: Encodable {
            let subtitle: String?
        }
        let context: MustacheValue = [
            "subtitle": "OUTER",
            "items": try MustacheValue(encoding: [Item(subtitle: nil), Item(subtitle: "inner")]),
        ]
        let template = try MustacheTemplate(string: "{{#items}}[{{subtitle}}]{{/items}}")
        // A missing key would fall back to the outer "OUTER"; null must not.
        #expect(template.render(context) == "[][inner]")
    }

    @Test func arrays_and_dictionaries() throws {
        #expect(try MustacheValue(encoding: [1, 2, 3]) == [1, 2, 3])
        #expect(try MustacheValue(encoding: ["a": [true], "b": []]) == ["a": [true], "b": []])
        #expect(try MustacheValue(encoding: [[String]]()) == [])
        let optionals: [Int?] = [1, nil]
        #expect(try MustacheValue(encoding: optionals) == [1, nil])
    }

    @Test func top_level_scalars() throws {
        #expect(try MustacheValue(encoding: "text") == "text")
        #expect(try MustacheValue(encoding: 42) == 42)
        #expect(try MustacheValue(encoding: true) == true)
        #expect(try MustacheValue(encoding: Int?.none) == nil)
    }

    @Test func numbers_use_their_shortest_text() throws {
        struct Numbers: Encodable {
            let whole = 2.0
            let fraction = 1.21
            let float: Float = 0.1
            let big = Int64.max
            let unsigned = UInt8(255)
            let negative = -3
        }
        let template = try MustacheTemplate(
            string: "{{whole}} {{fraction}} {{float}} {{big}} {{unsigned}} {{negative}}")
        #expect(
            template.render(try MustacheValue(encoding: Numbers()))
                == "2 1.21 0.1 9223372036854775807 255 -3")
    }

    @Test func non_finite_numbers_are_rejected() {
        #expect(throws: EncodingError.self) {
            try MustacheValue(encoding: ["x": Double.nan])
        }
        #expect(throws: EncodingError.self) {
            try MustacheValue(encoding: [Double.infinity])
        }
    }

    @Test func foundation_types() throws {
        struct Record: Encodable {
            let date: Date
            let link: URL
            let blob: Data
            let price: Decimal
            let id: UUID
        }
        let id = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        let record = Record(
            date: Date(timeIntervalSince1970: 1_714_564_800), link: URL(string: "https://example.com/a?b=c")!,
            blob: Data([0, 1, 2, 255]), price: Decimal(string: "19.99")!, id: id)
        let value = try MustacheValue(encoding: record)
        #expect(value["date"] == "2024-05-01T12:00:00Z")
        #expect(value["link"] == "https://example.com/a?b=c")
        #expect(value["blob"] == "AAEC/w==")
        #expect(value["price"] == .number(MustacheNumber(text: "19.99")!))
        #expect(value["id"] == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
    }

    @Test func enums_with_raw_values_and_nested_mustache_values() throws {
        enum Status: String, Encodable {
            case open
        }
        struct Wrapper: Encodable {
            let status: Status
            let extra: MustacheValue
        }
        let value = try MustacheValue(encoding: Wrapper(status: .open, extra: ["k": [1, "two"]]))
        #expect(value == ["status": "open", "extra": ["k": [1, "two"]]])
    }

    @Test func custom_encode_with_nested_containers_and_super_encoder() throws {
        struct Custom: Encodable {
            enum Keys: String, CodingKey {
                case outer, list, parent
            }
            enum InnerKeys: String, CodingKey {
                case inner
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                var nested = container.nestedContainer(keyedBy: InnerKeys.self, forKey: .outer)
                try nested.encode("deep", forKey: .inner)
                var list = container.nestedUnkeyedContainer(forKey: .list)
                try list.encode(1)
                try list.encodeNil()
                var listObject = list.nestedContainer(keyedBy: InnerKeys.self)
                try listObject.encode(true, forKey: .inner)
                var single = container.superEncoder(forKey: .parent).singleValueContainer()
                try single.encode("from super")
            }
        }
        let value = try MustacheValue(encoding: Custom())
        #expect(
            value == [
                "outer": ["inner": "deep"], "list": [1, nil, ["inner": true]], "parent": "from super",
            ])
    }

    @Test func encoded_values_render() throws {
        struct Page: Encodable {
            struct Row: Encodable {
                let name: String
                let note: String?
            }
            let rows: [Row]
        }
        let template = try MustacheTemplate(
            string: "{{#rows}}{{name}}{{#note}} ({{.}}){{/note}};{{/rows}}")
        let page = Page(rows: [.init(name: "a", note: "x<y"), .init(name: "b", note: nil)])
        #expect(template.render(try MustacheValue(encoding: page)) == "a (x&lt;y);b;")
    }
}
