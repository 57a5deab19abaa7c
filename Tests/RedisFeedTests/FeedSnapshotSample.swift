import Feed
import Foundation

/// A snapshot with awkward text and sub-second dates, for codec round trips.
enum FeedSnapshotSample {
    static func make() -> FeedSnapshot {
        let edited = Date(timeIntervalSince1970: 1_780_000_500.654_321)
        let entries = (1...5).map { (id: Int) -> FeedSnapshot.Entry in
            FeedSnapshot.Entry(
                item: FeedItem(
                    id: "id \(id) ✓", title: "Tïtle \(id) \"q\" </script>", body: "Line\nbreak\t\u{1}",
                    createdAt: Date(timeIntervalSince1970: 1_780_000_000.123_456 + Double(id)),
                    url: id == 2 ? "https://example.com/2?a=1&b=2" : nil,
                    image: id == 3 ? "https://img.example.com/3.jpg?w=1&h=2" : nil,
                    updatedAt: id == 4 ? edited : nil),
                addedIn: min(id, 3))
        }
        return FeedSnapshot(
            version: 3, updatedAt: Date(timeIntervalSince1970: 1_780_000_999.987_654),
            entries: entries.reversed())
    }
}
