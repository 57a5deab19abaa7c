import Testing

@testable import RedisClient

@Suite("Redis URLs")
struct RedisURLTests {
    @Test func fullURLIsParsed() throws {
        let url = try RedisURL("redis://:s%40cret@cache.internal:6390/3")
        #expect(url.host == "cache.internal")
        #expect(url.port == 6390)
        #expect(url.user == nil)
        #expect(url.password == "s@cret")
        #expect(url.database == 3)
        #expect(url.description == "redis://:***@cache.internal:6390/3")
    }

    @Test func defaultsApply() throws {
        let url = try RedisURL("redis://localhost")
        #expect(url.port == 6379)
        #expect(url.database == 0)
        #expect(url.password == nil)
        #expect(url.description == "redis://localhost:6379/0")
    }

    @Test func userAndPasswordAndIPv6() throws {
        let url = try RedisURL("redis://feed:pw@[::1]:7000/")
        #expect(url.user == "feed")
        #expect(url.password == "pw")
        #expect(url.host == "::1")
        #expect(url.port == 7000)
        #expect(url.description == "redis://feed:***@[::1]:7000/0")
    }

    @Test(arguments: [
        ("rediss://host", "hiredis 0.14.1 has no TLS"), ("http://host", "must look like redis://"),
        ("redis://host:0", "port must be an integer"), ("redis://host:abc", "port must be an integer"),
        ("redis://host/x", "database must be a non-negative integer"), ("redis://", "needs a host"),
        ("redis://:pw@:6379", "needs a host"), ("redis://[::1", "unclosed"),
    ])
    func badURLsSayWhatIsWrong(text: String, message: String) {
        #expect {
            try RedisURL(text)
        } throws: { error in
            guard case .badURL(let text) = error as? RedisError else { return false }
            return text.contains(message)
        }
    }
}
