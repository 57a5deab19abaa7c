public import Foundation

/// Items from a JSON file (`{"items": [...]}`; ids strings of 1–256 characters or positive
/// integers, read as their decimal text; optional http(s) `url` and `image`) re-read on every reload, so an operator can
/// edit content and pull to see it. Every problem is a ``FeedError`` naming the file and,
/// for a bad item, its index and field.
public struct FileSource: FeedSource {
    /// The file's path.
    public let path: String
    /// Files larger than this are refused rather than read into memory.
    public let maxBytes: Int
    /// Lists longer than this are refused.
    public let maxItems: Int

    /// Creates a source for `path`.
    public init(path: String, maxBytes: Int = 16 << 20, maxItems: Int = 100_000) {
        self.path = path
        self.maxBytes = maxBytes
        self.maxItems = maxItems
    }

    /// Reads and validates the file now.
    public func fetch(current: [FeedItem]) async throws -> [FeedItem] {
        try load()
    }

    /// Reads and validates the file synchronously (startup uses this).
    public func load() throws(FeedError) -> [FeedItem] {
        let name = (path as NSString).lastPathComponent
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw FeedError("data file \(name) cannot be read: it does not exist or is not accessible")
        }
        if let type = attributes[.type] as? FileAttributeType, type != .typeRegular {
            throw FeedError("data file \(name) is not a regular file")
        }
        if let size = (attributes[.size] as? NSNumber)?.intValue, size > maxBytes {
            throw FeedError("data file \(name) is \(size) bytes; the limit is \(maxBytes)")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw FeedError("data file \(name) cannot be opened for reading")
        }
        defer { try? handle.close() }
        // Read at most one byte past the limit: the file may have grown since the stat.
        let data: Data
        do {
            data = try handle.read(upToCount: maxBytes + 1) ?? Data()
        } catch {
            throw FeedError("data file \(name) cannot be read")
        }
        guard data.count <= maxBytes else {
            throw FeedError("data file \(name) is larger than the limit of \(maxBytes) bytes")
        }
        return try FileSource.parse(data, name: name, maxItems: maxItems)
    }

    /// Parses and validates file contents.
    public static func parse(_ data: Data, name: String, maxItems: Int = 100_000) throws(FeedError)
        -> [FeedItem]
    {
        let file: FileDTO
        do {
            file = try JSONDecoder().decode(FileDTO.self, from: data)
        } catch let error as DecodingError {
            throw FeedError("data file \(name): \(describe(error))")
        } catch {
            throw FeedError("data file \(name) is not valid JSON")
        }
        guard file.items.count <= maxItems else {
            throw FeedError("data file \(name) has \(file.items.count) items; the limit is \(maxItems)")
        }
        var seen = Set<String>()
        var items: [FeedItem] = []
        items.reserveCapacity(file.items.count)
        for (index, entry) in file.items.enumerated() {
            func fail(_ problem: String) -> FeedError {
                FeedError("data file \(name): items[\(index)]\(problem)")
            }
            let id: String
            switch entry.id {
            case .number(let number):
                guard number > 0 else { throw fail(".id must be a positive integer or a string") }
                id = String(number)
            case .text(let text):
                guard !text.isEmpty, text.count <= FeedItem.maxIDLength else {
                    throw fail(".id must be a string of 1 to \(FeedItem.maxIDLength) characters")
                }
                id = text
            }
            guard !entry.title.isEmpty, entry.title.count <= 500 else {
                throw fail(".title must be a non-empty string of at most 500 characters")
            }
            let body = entry.body ?? ""
            guard body.count <= 10_000 else { throw fail(".body must be at most 10000 characters") }
            guard let createdAt = Timestamp.parse(entry.createdAt) else {
                throw fail(".createdAt must be an ISO 8601 date-time such as 2026-01-31T12:00:00Z")
            }
            if let url = entry.url, !ItemLink.isSafe(url) {
                throw fail(".url must be an absolute http or https URL")
            }
            if let image = entry.image, !ItemLink.isSafe(image) {
                throw fail(".image must be an absolute http or https URL")
            }
            guard seen.insert(id).inserted else { throw fail(".id \(id) is a duplicate") }
            items.append(
                FeedItem(
                    id: id, title: entry.title, body: body, createdAt: createdAt, url: entry.url,
                    image: entry.image))
        }
        return items.sorted(by: FeedItem.newestFirst)
    }

    private struct FileDTO: Decodable {
        let items: [ItemDTO]
    }

    private struct ItemDTO: Decodable {
        let id: ItemID
        let title: String
        let body: String?
        let createdAt: String
        let url: String?
        let image: String?
    }

    /// An id as the file has it: an integer (older files) or a string.
    private enum ItemID: Decodable {
        case number(Int)
        case text(String)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int.self) {
                self = .number(number)
            } else {
                self = .text(try container.decode(String.self))
            }
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context, _ extra: CodingKey? = nil) -> String {
            var text = ""
            for key in context.codingPath + (extra.map { [$0] } ?? []) {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
                }
            }
            return text.isEmpty ? "the top level" : text
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context)) must be \(typeName(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context)) must be \(typeName(type)), not null"
        case .keyNotFound(let key, let context):
            return "\(path(context, key)) is missing"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "\(path(context)) is invalid"
        @unknown default:
            return "not valid"
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type: "an integer"
        case is String.Type: "a string"
        case is [Any].Type: "an array"
        default: "an object with an \"items\" array"
        }
    }
}
