import HTTPServer
import Testing

@testable import Feed
@testable import FeedWeb

@Suite("Response cache")
struct ResponseCacheTests {
    @Test func theRecentEntryIsNeverServedForAnotherVersion() {
        let cache = ResponseCache<String, String>(capacity: 8)
        #expect(cache.value(version: 1, key: "first page") { "v1" } == "v1")
        // Found twice: the second lookup is answered by the recent entry.
        #expect(cache.lookup(version: 1, key: "first page") == "v1")
        #expect(cache.lookup(version: 1, key: "first page") == "v1")
        #expect(cache.value(version: 2, key: "first page") { "v2" } == "v2")
        #expect(cache.lookup(version: 1, key: "first page") == nil)
        #expect(cache.lookup(version: 2, key: "first page") == "v2")
    }

    @Test func theRecentEntryAnswersOnlyItsOwnKey() {
        let cache = ResponseCache<String, String>(capacity: 8)
        _ = cache.value(version: 1, key: "a") { "A" }
        _ = cache.value(version: 1, key: "b") { "B" }
        #expect(cache.lookup(version: 1, key: "a") == "A")
        #expect(cache.lookup(version: 1, key: "b") == "B")
        #expect(cache.lookup(version: 1, key: "a") == "A")
        #expect(cache.lookup(version: 1, key: "c") == nil)
        #expect(cache.counts.hits == 3)
    }

    @Test func aFullCacheForgetsItsRecentEntryToo() {
        let cache = ResponseCache<Int, Int>(capacity: 2)
        _ = cache.value(version: 1, key: 1) { 10 }
        #expect(cache.lookup(version: 1, key: 1) == 10)
        _ = cache.value(version: 1, key: 2) { 20 }
        // The third key empties the full cache, the recent entry included.
        _ = cache.value(version: 1, key: 3) { 30 }
        #expect(cache.lookup(version: 1, key: 1) == nil)
        #expect(cache.lookup(version: 1, key: 3) == 30)
    }
}
