public import Foundation

/// The built-in upstream: every fetch adds one to three new items on top, so a pull always
/// brings news. The text is deterministic for a seed; only timestamps follow the clock.
public struct GeneratorSource: FeedSource {
    private let seed: UInt64
    private let now: @Sendable () -> Date

    /// Creates a generator; `now` stamps `createdAt` (injected so tests control time).
    public init(seed: UInt64, now: @escaping @Sendable () -> Date = { Date() }) {
        self.seed = seed
        self.now = now
    }

    /// `count` items with ids `1...count`, for the first page load.
    public func initialItems(count: Int) -> [FeedItem] {
        let base = now()
        return (1...max(1, count)).map { id in
            makeItem(id: id, createdAt: base.addingTimeInterval(Double(id - count) * 60))
        }.sorted(by: FeedItem.newestFirst)
    }

    /// Adds one to three items above the current newest.
    public func fetch(current: [FeedItem]) async throws -> [FeedItem] {
        let highest = current.compactMap { Int($0.id) }.max() ?? 0
        var random = SplitMix64(seed: seed &+ UInt64(highest) &* 0x9E37_79B9)
        let count = Int(random.next() % 3) + 1
        let stamp = now()
        let fresh = (1...count).map { offset in
            makeItem(id: highest + offset, createdAt: stamp.addingTimeInterval(Double(offset) / 1000))
        }
        return (fresh + current).sorted(by: FeedItem.newestFirst)
    }

    private func makeItem(id: Int, createdAt: Date) -> FeedItem {
        var random = SplitMix64(seed: seed ^ (UInt64(id) &* 0xD1B5_4A32_D192_ED03))
        let subject = Self.subjects[Int(random.next() % UInt64(Self.subjects.count))]
        let verb = Self.verbs[Int(random.next() % UInt64(Self.verbs.count))]
        let object = Self.objects[Int(random.next() % UInt64(Self.objects.count))]
        let detail = Self.details[Int(random.next() % UInt64(Self.details.count))]
        return FeedItem(
            id: String(id), title: "\(subject) \(verb) \(object)",
            body: "Update #\(id): \(detail)", createdAt: createdAt)
    }

    private static let subjects = [
        "The harbour ferry", "A night bakery", "The city library", "Our weather station",
        "The old observatory",
        "A rooftop garden", "The tram line 7", "The river festival", "A small bookshop", "The mountain hut",
    ]
    private static let verbs = [
        "reopens", "announces", "extends", "celebrates", "rethinks", "launches", "restores", "measures",
    ]
    private static let objects = [
        "its morning schedule", "a late-night service", "the spring programme", "new opening hours",
        "a community workshop", "record visitor numbers", "a quieter timetable", "free guided tours",
    ]
    private static let details = [
        "Doors open at eight; bring a friend.",
        "Expect short queues before noon and none after.",
        "Volunteers are welcome — sign up at the front desk.",
        "The change applies from next Monday until further notice.",
        "Tickets stay the same price; children go free.",
        "Details were shared at this morning's briefing.",
        "Feedback from last season shaped the new plan.",
        "Accessible entrances are marked on the updated map.",
    ]
}

/// A tiny, fast, well-mixed PRNG; reproducible across platforms unlike the system generator.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
