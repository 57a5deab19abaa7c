import Feed
import Foundation
import RedisClient

/// The stored form of one version: `{"version","updatedAt","entries":[{"id","title","body",
/// "createdAt","addedIn","url"?,"image"?,"updatedAt"?}]}`, dates as seconds since 1970. What Redis holds is checked like any
/// other input: a malformed snapshot is refused with a message, never half-applied. The epoch is
/// not part of it: it lives beside it (`prefix:epoch`, and in each channel message).
enum SnapshotCodec {
    private struct Stored: Codable {
        var version: Int
        var updatedAt: Double
        var entries: [StoredEntry]
    }

    private struct StoredEntry: Codable {
        var id: String
        var title: String
        var body: String
        var createdAt: Double
        var addedIn: Int
        var url: String?
        var image: String?
        /// When the item last changed in place (absent in snapshots written before it existed).
        var updatedAt: Double?
    }

    static func encode(_ snapshot: FeedSnapshot) -> [UInt8] {
        let stored = Stored(
            version: snapshot.version, updatedAt: snapshot.updatedAt.timeIntervalSince1970,
            entries: snapshot.entries.map {
                StoredEntry(
                    id: $0.item.id, title: $0.item.title, body: $0.item.body,
                    createdAt: $0.item.createdAt.timeIntervalSince1970, addedIn: $0.addedIn, url: $0.item.url,
                    image: $0.item.image, updatedAt: $0.item.updatedAt?.timeIntervalSince1970)
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain structs of numbers and strings cannot fail.
        return Array((try? encoder.encode(stored)) ?? Data())
    }

    /// The snapshot in `bytes`, of `epoch`.
    static func decode(_ bytes: [UInt8], epoch: Int) throws(RedisError) -> FeedSnapshot {
        let stored: Stored
        do {
            stored = try JSONDecoder().decode(Stored.self, from: Data(bytes))
        } catch {
            throw .unexpectedReply(
                "stored snapshot is not valid JSON of the expected shape (\(bytes.count) bytes)")
        }
        guard stored.version >= 1 else {
            throw .unexpectedReply("stored snapshot has version \(stored.version)")
        }
        for entry in stored.entries
        where entry.id.isEmpty || entry.id.count > FeedItem.maxIDLength || entry.addedIn < 1
            || entry.addedIn > stored.version
        {
            throw .unexpectedReply("stored snapshot \(stored.version) has a bad entry (id \(entry.id))")
        }
        return FeedSnapshot(
            version: stored.version, updatedAt: Date(timeIntervalSince1970: stored.updatedAt),
            entries: stored.entries.map {
                FeedSnapshot.Entry(
                    item: FeedItem(
                        id: $0.id, title: $0.title, body: $0.body,
                        createdAt: Date(timeIntervalSince1970: $0.createdAt), url: $0.url, image: $0.image,
                        updatedAt: $0.updatedAt.map(Date.init(timeIntervalSince1970:))),
                    addedIn: $0.addedIn)
            }, epoch: epoch)
    }
}
