import Foundation
import HTTPClient
import TestSupport
import Testing

@Suite("Image fetch: limits, content types, addresses", .serialized) struct ImageFetcherTests {
    /// Allows exactly 127.0.0.1 (the test host) and nothing else inside the network.
    let onlyFirstLoopback = AddressPolicy(allowsPrivate: false, alsoAllowed: [[127, 0, 0, 1]])

    func fetch(_ url: URL, policy: AddressPolicy = .any, resolve: [String] = []) async throws(UpstreamError)
        -> FetchedBody
    {
        try await ImageFetcher(
            limits: FetchLimits(connectTimeout: 2, totalTimeout: 5), policy: policy, resolve: resolve
        )
        .fetch(url)
    }

    func failure(_ url: URL, policy: AddressPolicy = .any, resolve: [String] = []) async -> UpstreamError? {
        do {
            _ = try await fetch(url, policy: policy, resolve: resolve)
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "each image type is fetched whole",
        arguments: ["photo.jpg", "photo.png", "photo.webp", "photo.avif", "animated.gif"])
    func images(name: String) async throws {
        let host = try await ImageHost.running()
        let body = try await fetch(host.url("/f/\(name)"))
        #expect(body.data == Data(try await ImageFixtures.bytes(name)))
        #expect(ImageFetcher.accepts(contentType: body.contentType))
    }

    @Test("SVG and HTML are refused by their Content-Type")
    func contentTypes() async throws {
        let host = try await ImageHost.running()
        #expect(await failure(host.url("/f/drawing.svg"))?.kind == .contentType)
        #expect(await failure(host.url("/f/page.html"))?.kind == .contentType)
        #expect(await failure(host.url("/as/application_octet-stream/photo.jpg"))?.kind == .contentType)
    }

    @Test("a body over 8 MiB is cut")
    func oversized() async throws {
        let host = try await ImageHost.running()
        let error = await failure(host.url("/f/oversized.jpg"))
        #expect(error?.kind == .tooLarge, "\(String(describing: error))")
    }

    @Test("loopback is refused without the test flag")
    func loopbackRefused() async throws {
        let host = try await ImageHost.running()
        let error = await failure(host.url("/f/photo.jpg"), policy: .publicOnly)
        #expect(error?.kind == .blockedAddress, "\(String(describing: error))")
        #expect(try await host.requests(for: "/f/never-asked.jpg") == 0)
    }

    @Test("a redirect to a second loopback address is refused, and never reaches it")
    func redirectToPrivate() async throws {
        let host = try await ImageHost.running()
        let target = host.url("/f/redirected-away.jpg", address: "127.0.0.2")
        let start = host.url("/redirect?to=\(target.absoluteString)")
        // The first hop (127.0.0.1) is allowed; the redirect's address is checked too.
        let error = await failure(start, policy: onlyFirstLoopback)
        #expect(error?.kind == .blockedAddress, "\(String(describing: error))")
        #expect(error?.message.contains("127.0.0.2") == true)
        #expect(try await host.requests(for: "/redirect?to=\(target.absoluteString)") == 1)
        #expect(try await host.requests(for: "/f/redirected-away.jpg") == 0)
        // With every address allowed, the same redirect is followed.
        let followed = try await fetch(
            host.url("/redirect?to=\(host.url("/f/photo.jpg", address: "127.0.0.2"))"))
        #expect(followed.data.count == (try await ImageFixtures.bytes("photo.jpg")).count)
    }

    @Test("a name that resolves to loopback is refused on the address connected to")
    func rebinding() async throws {
        let host = try await ImageHost.running()
        let url = URL(string: "http://images.example.test:\(host.port)/f/rebound.jpg")!
        let resolve = ["images.example.test:\(host.port):127.0.0.2"]
        let error = await failure(url, policy: onlyFirstLoopback, resolve: resolve)
        #expect(error?.kind == .blockedAddress, "\(String(describing: error))")
        #expect(try await host.requests(for: "/f/rebound.jpg") == 0)
        let allowed = try await fetch(
            URL(string: "http://images.example.test:\(host.port)/f/photo.png")!, resolve: resolve)
        #expect(allowed.contentType == "image/png")
    }

    @Test("addresses inside the network are not public")
    func classification() {
        let private4: [[UInt8]] = [
            [127, 0, 0, 1], [127, 9, 9, 9], [10, 1, 2, 3], [172, 16, 0, 1], [172, 31, 255, 255],
            [192, 168, 1, 1],
            [169, 254, 169, 254], [100, 64, 0, 1], [0, 0, 0, 0], [224, 0, 0, 1], [239, 255, 255, 250],
            [255, 255, 255, 255], [198, 18, 0, 1],
        ]
        for address in private4 { #expect(!AddressPolicy.isPublic(address), "\(address)") }
        for address: [UInt8] in [[93, 184, 216, 34], [8, 8, 8, 8], [172, 32, 0, 1], [100, 128, 0, 1]] {
            #expect(AddressPolicy.isPublic(address), "\(address)")
        }
        func v6(_ prefix: [UInt8], _ suffix: [UInt8] = []) -> [UInt8] {
            prefix + [UInt8](repeating: 0, count: 16 - prefix.count - suffix.count) + suffix
        }
        let private6 = [
            v6([], [1]), v6([]), v6([0xfe, 0x80], [1]), v6([0xfd, 0x00], [1]), v6([0xff, 0x02], [1]),
            v6([], [0xff, 0xff, 127, 0, 0, 1]), v6([], [0xff, 0xff, 10, 0, 0, 1]),
            v6([0x00, 0x64, 0xff, 0x9b], [192, 168, 0, 1]),
        ]
        for address in private6 { #expect(!AddressPolicy.isPublic(address), "\(address)") }
        #expect(AddressPolicy.isPublic(v6([0x26, 0x06, 0x28, 0x00], [1])))
        #expect(AddressPolicy.isPublic(v6([], [0xff, 0xff, 8, 8, 8, 8])))
    }
}
