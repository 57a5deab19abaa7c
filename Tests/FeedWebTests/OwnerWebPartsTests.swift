import HTTPServer
import Testing

@testable import FeedWeb

@Suite("The owner's web parts: next, cookies, proxies, other sites")
struct OwnerWebPartsTests {
    @Test(arguments: [
        "//evil.example", "/\\evil.example", "https://evil.example/", "javascript:alert(1)", "%2F%2Fevil",
        "/\t/evil.example", "/a\r\nSet-Cookie: x=1", "/ü", "", "evil.example",
        String(repeating: "/a", count: 1025),
    ])
    func nextOutsideTheSiteBecomesTheRiver(next: String) {
        #expect(LocalRedirect.target(next) == "/")
    }

    @Test func localPathsAreKept() {
        for next in ["/", "/?layout=grid&lang=ja", "/feeds", "/img/abc?w=96", "/%2F%2Fstill-a-path"] {
            #expect(LocalRedirect.target(next) == next)
        }
        #expect(LocalRedirect.target(nil) == "/")
    }

    @Test func theSessionCookieIsReadUnderTheSchemesNameOnly() {
        let request = Request(
            method: "GET", path: "/",
            headers: ["Cookie": "a=1; pullrefresh_session=plain;__Host-pullrefresh_session=secure"])
        #expect(SessionCookie.value(in: request, secure: false) == "plain")
        #expect(SessionCookie.value(in: request, secure: true) == "secure")
        #expect(SessionCookie.value(in: Request(method: "GET", path: "/"), secure: false) == nil)
        #expect(
            SessionCookie.value(
                in: Request(method: "GET", path: "/", headers: ["Cookie": "pullrefresh_session="]),
                secure: false) == nil)
        #expect(SessionCookie.set("v", secure: true).hasPrefix("__Host-pullrefresh_session=v; Path=/;"))
        #expect(SessionCookie.set("v", secure: true).hasSuffix("HttpOnly; SameSite=Lax; Secure"))
        #expect(!SessionCookie.set("v", secure: false).contains("Secure"))
    }

    @Test func forwardedFieldsCountFromTheTrustedProxyOnly() {
        let transport = ClientTransport(tls: false, trustedProxies: ["127.0.0.1", "0:0::1"])
        var viaProxy = Request(
            method: "POST", path: "/signin",
            headers: ["X-Forwarded-For": "127.0.0.99, 127.0.0.7", "X-Forwarded-Proto": "https"],
            remoteAddress: "127.0.0.1")
        #expect(transport.clientAddress(viaProxy) == "127.0.0.7")
        #expect(transport.isSecure(viaProxy))
        viaProxy.remoteAddress = "::1"
        #expect(transport.clientAddress(viaProxy) == "127.0.0.7")
        let direct = Request(
            method: "POST", path: "/signin",
            headers: ["X-Forwarded-For": "127.0.0.7", "X-Forwarded-Proto": "https"],
            remoteAddress: "127.0.0.2")
        #expect(transport.clientAddress(direct) == "127.0.0.2")
        #expect(!transport.isSecure(direct))
        // Not an address: the peer's is kept.
        let garbage = Request(
            method: "GET", path: "/", headers: ["X-Forwarded-For": "unknown"], remoteAddress: "127.0.0.1")
        #expect(transport.clientAddress(garbage) == "127.0.0.1")
        #expect(ClientTransport(tls: true).isSecure(direct))
        #expect(ClientTransport.canonical("[::ffff:127.0.0.1]") == "::ffff:127.0.0.1")
        #expect(ClientTransport.canonical("localhost") == nil)
    }

    @Test func otherSitesAreToldByOriginAndSecFetchSite() {
        let transport = ClientTransport(tls: false)
        func crossSite(_ headers: HTTPHeaders) -> Bool {
            var all: HTTPHeaders = ["Host": "127.0.0.1:8080"]
            for field in headers { all.add(field.name, field.value) }
            return CrossSiteCheck.isCrossSite(
                Request(method: "POST", path: "/x", headers: all), transport: transport)
        }
        #expect(!crossSite([:]))
        #expect(!crossSite(["Origin": "http://127.0.0.1:8080"]))
        #expect(!crossSite(["Origin": "null", "Sec-Fetch-Site": "same-origin"]))
        #expect(crossSite(["Origin": "http://evil.example"]))
        #expect(crossSite(["Origin": "https://127.0.0.1:8080"]))
        #expect(crossSite(["Sec-Fetch-Site": "cross-site"]))
        #expect(crossSite(["Sec-Fetch-Site": "same-site", "Origin": "http://127.0.0.1:8080"]))
    }
}
