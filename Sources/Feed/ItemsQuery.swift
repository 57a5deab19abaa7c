import Foundation
import HTTPServer

/// Validated query parameters of the items API: `limit`, `cursor`, `since`.
struct ItemsQuery: Sendable {
    /// A position in feed order (newest first): the last item of the previous page.
    struct Cursor: Hashable, Sendable {
        var millis: Int64
        var id: String

        init(millis: Int64, id: String) {
            self.millis = millis
            self.id = id
        }

        init(after item: FeedItem) {
            self.init(millis: item.createdAtMillis, id: item.id)
        }

        /// base64url (no padding) of `<epoch millis>:<id>`: opaque to clients, since ids may
        /// hold any character, and still readable when decoded while debugging.
        var text: String {
            Data("\(millis):\(id)".utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }

        init?(text: String) {
            guard !text.isEmpty, text.utf8.count <= 1400,
                text.utf8.allSatisfy({ $0.isBase64URLDigit })
            else { return nil }
            var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(
                of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
            guard let data = Data(base64Encoded: base64), let decoded = String(data: data, encoding: .utf8),
                let colon = decoded.firstIndex(of: ":")
            else { return nil }
            let digits = decoded[..<colon]
            let id = String(decoded[decoded.index(after: colon)...])
            guard !digits.isEmpty, digits.utf8.allSatisfy({ (48...57).contains($0) }),
                let millis = Int64(digits),
                !id.isEmpty, id.count <= FeedItem.maxIDLength
            else { return nil }
            self.init(millis: millis, id: id)
        }

        /// Whether `item` comes after this position in newest-first order.
        func precedes(_ item: FeedItem) -> Bool {
            let other = Cursor(after: item)
            return other.millis != millis ? other.millis < millis : other.id < id
        }
    }

    static let defaultLimit = 50
    static let maxLimit = 100
    /// Versions stay within JavaScript's safe integers, so browsers can hold them exactly.
    static let maxVersion = 9_007_199_254_740_991

    var limit = ItemsQuery.defaultLimit
    var cursor: Cursor?
    var since: Int?

    init() {}

    init(_ request: Request) throws(HTTPError) {
        if let raw = request.queryValue("limit") {
            guard let value = Int(raw), (1...Self.maxLimit).contains(value) else {
                throw HTTPError.badRequest(
                    "Query parameter 'limit' must be an integer from 1 to \(Self.maxLimit).",
                    code: "invalid_limit")
            }
            limit = value
        }
        if let raw = request.queryValue("cursor") {
            guard let value = Cursor(text: raw) else {
                throw HTTPError.badRequest(
                    "Query parameter 'cursor' is not a cursor returned as 'nextCursor'.",
                    code: "invalid_cursor")
            }
            cursor = value
        }
        if let raw = request.queryValue("since") {
            guard let value = Int(raw), (0...Self.maxVersion).contains(value) else {
                throw HTTPError.badRequest(
                    "Query parameter 'since' must be a non-negative integer version.", code: "invalid_since")
            }
            since = value
        }
    }

    /// `since` from a JSON body `{"since": n}`; an empty body means none.
    static func since(fromBody body: [UInt8]) throws(HTTPError) -> Int? {
        guard body.contains(where: { ![9, 10, 13, 32].contains($0) }) else { return nil }
        struct Body: Decodable {
            let since: Int?
        }
        let decoded: Body
        do {
            decoded = try JSONDecoder().decode(Body.self, from: Data(body))
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            throw HTTPError.badRequest("The request body is not valid JSON.", code: "invalid_json")
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw HTTPError.badRequest(
                "The request body must be a JSON object such as {\"since\": 3}.", code: "invalid_json")
        } catch {
            throw HTTPError.badRequest(
                "Field 'since' must be a non-negative integer version.", code: "invalid_since")
        }
        guard let since = decoded.since else { return nil }
        guard (0...maxVersion).contains(since) else {
            throw HTTPError.badRequest(
                "Field 'since' must be a non-negative integer version.", code: "invalid_since")
        }
        return since
    }
}

extension UInt8 {
    /// `A–Z a–z 0–9 - _`: the base64url alphabet.
    fileprivate var isBase64URLDigit: Bool {
        (65...90).contains(self) || (97...122).contains(self) || (48...57).contains(self) || self == 45
            || self == 95
    }
}
