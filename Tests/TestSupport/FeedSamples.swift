public import Feed
public import Foundation

/// Feed data for tests of the store and of what serves it: items at known times, the data
/// file a ``FileSource`` reads, and temporary folders to put them in.
public enum FeedSamples {
    /// A fresh temporary folder, removed by the caller with `cleanUp`.
    public static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pullrefresh-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Item `id`, titled "Item <id>", created `minute` (default: `id`) minutes into 2026.
    public static func item(_ id: Int, title: String? = nil, body: String = "body", minute: Int? = nil)
        -> FeedItem
    {
        FeedItem(
            id: String(id), title: title ?? "Item \(id)", body: body,
            createdAt: Date(timeIntervalSince1970: 1_767_225_600 + Double((minute ?? id) * 60)))
    }

    /// Writes `{"items": [...]}` for `items`.
    public static func writeData(_ items: [FeedItem], to url: URL) throws {
        let list = items.map { item -> [String: Any] in
            [
                "id": item.id, "title": item.title, "body": item.body,
                "createdAt": Timestamp.iso(item.createdAt),
            ]
        }
        let data = try JSONSerialization.data(withJSONObject: ["items": list], options: [.sortedKeys])
        try data.write(to: url)
    }
}
