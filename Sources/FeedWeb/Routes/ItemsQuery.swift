import Feed
import Foundation
import HTTPServer

/// Validated query parameters of the items API: `limit`, `cursor`, `since`.
///
/// `since` is a version, or a position `<epoch tag>-<version>` (what pages send, and event ids):
/// a position from another epoch than the snapshot's reads as `0` (``sinceClamped(to:)``),
/// since its numbers name other items.
struct ItemsQuery: Sendable {
    /// A position in feed order (newest first): the last item of the previous page.
    struct Cursor: Hashable, Sendable {
        var millis: Int64
        /// The id's UTF-8 bytes: any bytes are a position, so every well-formed cursor is valid.
        var id: [UInt8]

        init(millis: Int64, id: String) {
            self.millis = millis
            self.id = Array(id.utf8)
        }

        init(after item: FeedItem) {
            self.init(millis: item.createdAtMillis, id: item.id)
        }

        /// `c<epoch millis>.<the id's UTF-8 in lowercase hex>`: opaque to clients (ids may hold
        /// any character), exactly described by one pattern in the OpenAPI document, and still
        /// readable when debugging. The `c` keeps the earlier `<millis>.<integer id>` form out.
        var text: String {
            let digits: [UInt8] = Array("0123456789abcdef".utf8)
            var bytes = Array("c\(millis).".utf8)
            bytes.reserveCapacity(bytes.count + id.count * 2)
            for byte in id {
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 15)])
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        init?(text: String) {
            let bytes = Array(text.utf8)
            guard bytes.first == UInt8(ascii: "c"), let dot = bytes.firstIndex(of: UInt8(ascii: ".")) else {
                return nil
            }
            let digits = bytes[1..<dot]
            let hex = bytes[(dot + 1)...]
            guard (1...18).contains(digits.count), digits.allSatisfy({ (48...57).contains($0) }),
                let millis = Int64(String(decoding: digits, as: UTF8.self)), !hex.isEmpty, hex.count % 2 == 0,
                hex.count <= 4 * FeedItem.maxIDLength * 2
            else { return nil }
            var id: [UInt8] = []
            id.reserveCapacity(hex.count / 2)
            var index = hex.startIndex
            while index < hex.endIndex {
                guard let high = Self.nibble(hex[index]), let low = Self.nibble(hex[index + 1]) else {
                    return nil
                }
                id.append(high << 4 | low)
                index += 2
            }
            self.millis = millis
            self.id = id
        }

        private static func nibble(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 48...57: byte - 48
            case 97...102: byte - 87
            default: nil
            }
        }

        /// Whether `item` comes after this position in newest-first order.
        func precedes(_ item: FeedItem) -> Bool {
            let other = item.createdAtMillis
            return other != millis ? other < millis : item.id.utf8.lexicographicallyPrecedes(id)
        }
    }

    static let defaultLimit = 50
    static let maxLimit = 100
    /// Versions stay within JavaScript's safe integers, so browsers can hold them exactly.
    static let maxVersion = 9_007_199_254_740_991

    var limit = ItemsQuery.defaultLimit
    var cursor: Cursor?
    var since: Int?
    /// The epoch `since` was given in, when it was a position; nil for a bare version.
    var sinceEpoch: Int?

    init() {}

    init(_ request: borrowing Request) throws(HTTPError) {
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
            guard let (epoch, version) = Self.sincePosition(raw) else {
                throw HTTPError.badRequest(
                    "Query parameter 'since' must be a non-negative integer version or a position "
                        + "'<epoch>-<version>'.", code: "invalid_since")
            }
            since = version
            sinceEpoch = epoch
        }
    }

    /// `since` as given: a bare version (`12`, epoch nil) or a position (`mh3x2k1c-12`); nil
    /// when it is neither or the version is beyond ``maxVersion``.
    static func sincePosition(_ raw: String) -> (epoch: Int?, version: Int)? {
        if let position = FeedPosition(eventID: raw) {
            guard position.version <= maxVersion else { return nil }
            return (position.epoch, position.version)
        }
        guard let version = Int(raw), (0...maxVersion).contains(version) else { return nil }
        return (nil, version)
    }

    /// This query with `since` read against `snapshot`: a position from another epoch, or a
    /// version above the snapshot's (a client from an earlier run: the in-memory store restarts
    /// at version 1), reads as `0`, so the client gets every item rather than none.
    func sinceClamped(to snapshot: FeedSnapshot) -> ItemsQuery {
        var query = self
        guard let since else { return query }
        if since > snapshot.version { query.since = 0 }
        if let sinceEpoch, sinceEpoch != snapshot.epoch { query.since = 0 }
        query.sinceEpoch = nil
        return query
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
