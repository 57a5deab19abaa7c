import Logging
import Testing

@testable import HTTPServer

@Suite("Router and request parsing, without sockets")
struct RouterTests {
    static func makeRouter() -> Router {
        var router = Router()
        router.get("/") { _ in .text("home") }
        router.get("/items/:id") { request in .text("item \(request.parameters["id"] ?? "?")") }
        router.get("/static/*") { request in .text("file [\(request.parameters["*"] ?? "")]") }
        router.post("/echo") { request in .text(request.bodyText ?? "") }
        router.get("/teapot") { _ in throw HTTPError(418, code: "teapot", message: "short and stout") }
        router.get("/bug") { _ in
            struct Secret: Error { let password = "hunter2" }
            throw Secret()
        }
        return router
    }

    @Test func routesByMethodAndPath() async {
        let router = Self.makeRouter()
        let home = await router.respond(to: Request(method: "GET", path: "/"))
        #expect(home.status == 200)
        #expect(String(decoding: home.body, as: UTF8.self) == "home")
        let echo = await router.respond(to: Request(method: "POST", path: "/echo", body: Array("hi".utf8)))
        #expect(String(decoding: echo.body, as: UTF8.self) == "hi")
    }

    @Test func capturesPathParameters() async {
        let router = Self.makeRouter()
        let item = await router.respond(to: Request(method: "GET", path: "/items/42"))
        #expect(String(decoding: item.body, as: UTF8.self) == "item 42")
        let file = await router.respond(to: Request(method: "GET", path: "/static/css/app.css"))
        #expect(String(decoding: file.body, as: UTF8.self) == "file [css/app.css]")
        let empty = await router.respond(to: Request(method: "GET", path: "/items/"))
        #expect(empty.status == 404)
    }

    @Test(
        arguments: [
            ("/static/*", "/static/app.css", ["*": "app.css"]),
            ("/static/*", "/static/", ["*": ""]),
            ("/static/*", "/static", nil),
            ("/static/*", "/statik/app.css", nil),
            ("/static/*", "/stat/app.css", nil),
            ("/static/*", "static/app.css", nil),
            ("/items/:id", "/items/é42", ["id": "é42"]),
            ("/items/:id", "/items/42/more", nil),
            ("/a/:x/b/:y", "/a/1/b/2", ["x": "1", "y": "2"]),
            ("/api/items", "/api/items", [:]),
            ("/api/items", "/api/item", nil),
            ("/api/items", "/api/items/", nil),
            ("/", "/", [:]),
        ] as [(String, String, [String: String]?)])
    func patternsMatchWholeSegments(pattern: String, path: String, expected: [String: String]?) {
        #expect(PathPattern(pattern).match(path) == expected)
    }

    @Test func unknownPathIs404() async {
        let response = await Self.makeRouter().respond(to: Request(method: "GET", path: "/nope"))
        #expect(response.status == 404)
    }

    @Test func trailingSlashIsAnotherPath() async {
        let response = await Self.makeRouter().respond(to: Request(method: "POST", path: "/echo/"))
        #expect(response.status == 404)
    }

    @Test func wrongMethodIs405WithAllow() async {
        let router = Self.makeRouter()
        let response = await router.respond(to: Request(method: "DELETE", path: "/"))
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET, HEAD")
        let post = await router.respond(to: Request(method: "GET", path: "/echo"))
        #expect(post.status == 405)
        #expect(post.headers["allow"] == "POST")
    }

    @Test func headUsesTheGetRoute() async {
        let response = await Self.makeRouter().respond(to: Request(method: "HEAD", path: "/"))
        #expect(response.status == 200)
    }

    @Test func httpErrorsKeepTheirStatus() async {
        let response = await Self.makeRouter().respond(to: Request(method: "GET", path: "/teapot"))
        #expect(response.status == 418)
        #expect(String(decoding: response.body, as: UTF8.self).contains("short and stout"))
    }

    @Test func otherErrorsAreBare500WithoutDetails() async {
        let response = await Self.makeRouter().respond(to: Request(method: "GET", path: "/bug"))
        #expect(response.status == 500)
        #expect(response.body.isEmpty)
    }

    @Test func errorRendererShapesErrors() async {
        var router = Router(errorRenderer: { error, _ in
            Response(
                status: error.status, contentType: "application/json", text: "{\"code\":\"\(error.code)\"}")
        })
        router.get("/x") { _ in .text("x") }
        let response = await router.respond(to: Request(method: "GET", path: "/y"))
        #expect(response.status == 404)
        #expect(String(decoding: response.body, as: UTF8.self) == "{\"code\":\"not_found\"}")
    }

    @Test func parsesTargetsAndDecodesOnce() throws {
        let request = try Request(method: "GET", target: "/a%20b/%252e?x=1&y&z=a+b%2Bc&x=2")
        #expect(request.path == "/a b/%2e")
        #expect(request.queryValue("x") == "1")
        #expect(request.queryValue("y") == "")
        #expect(request.queryValue("z") == "a b+c")
        #expect(request.query.count == 4)
    }

    @Test(arguments: ["/%zz", "/%4", "/%00", "/%ff", "nope", "/?q=%e2%28%a1"])
    func rejectsBadTargets(target: String) {
        #expect(throws: HTTPError.self) { try Request(method: "GET", target: target) }
    }

    @Test func headersAreCaseInsensitive() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain"]
        headers.add("X-A", "1")
        headers.add("x-a", "2")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers.values(for: "X-A") == ["1", "2"])
        headers.set("X-A", "3")
        #expect(headers.values(for: "x-a") == ["3"])
    }

    @Test func logLinesEscapeControlCharacters() {
        #expect(Logger.printable("/a\nb c") == "/a%0Ab%20c")
        #expect(Logger.printable("/plain") == "/plain")
    }
}
