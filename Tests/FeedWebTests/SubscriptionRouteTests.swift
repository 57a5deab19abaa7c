import Foundation
import HTTPServer
import Logging
import TestSupport
import Testing

@testable import Feed
@testable import FeedWeb

/// The subscription surfaces through the router (no sockets), over an in-memory book: the API's
/// statuses and documents, the Feeds page and its forms, `?folder=`, the share target.
@Suite("Subscriptions: the Feeds page and /api/sources changes")
struct SubscriptionRouteTests {
    /// A gate that admits everything as the signed-in owner (the session's CSRF token is known).
    struct SignedIn: AccessGate {
        static let token = "csrf-token-1234"
        func admit(_ request: inout Request, to access: Access) -> Response? {
            request.principal = Principal(name: "owner", credential: .session, csrfToken: Self.token)
            return nil
        }
    }

    /// The same sources as a list that cannot change (a river without a database).
    struct CommandLineSources: SourceDirectory {
        let book: SubscriptionBookDouble
        var reports: [SourceReport] { book.reports }
        var statusGeneration: Int { book.statusGeneration }
        func label(forItemID id: String) -> SourceLabel? { book.label(forItemID: id) }
        func label(forKey key: String) -> SourceLabel? { book.label(forKey: key) }
    }

    static let news = "http://news.example/feed.xml"
    static let tech = "http://tech.example/rss"
    static let loose = "http://loose.example/atom.xml"

    let book: SubscriptionBookDouble
    let router: Router

    /// Three feeds, two in folder "News & Tech" (a name that needs escaping everywhere), one in
    /// none; the first is the operator's. Each has two items in the river.
    init() throws {
        book = SubscriptionBookDouble(
            feeds: [(Self.news, "News & Tech"), (Self.tech, "News & Tech"), (Self.loose, nil)], operators: 1)
        router = try Self.router(book: book)
    }

    static func router(
        book: SubscriptionBookDouble?, sources: (any SourceDirectory)? = nil, signedIn: Bool = true
    )
        throws -> Router
    {
        let store = ScriptedStore()
        let keys = [news, tech, loose].map(SubscriptionBookDouble.key)
        let entries = keys.enumerated().flatMap { index, key in
            (0..<2).map { n in
                FeedSnapshot.Entry(
                    item: FeedItem(
                        id: RiverItemID.join(key: key, id: "item-\(n)"), title: "\(key) item \(n)", body: "",
                        createdAt: Date(timeIntervalSince1970: 1_700_000_000 - Double(index * 10 + n))),
                    addedIn: 1)
            }
        }
        store.publish(
            FeedSnapshot(version: 2, updatedAt: Date(timeIntervalSince1970: 1_700_000_000), entries: entries))
        let (_, publicDir) = try Fixtures.publicFolder()
        let app = FeedApp(
            store: store, renderer: try Fixtures.renderer(),
            files: try StaticFiles(directory: publicDir.path),
            logger: Logger(quiet: true), sources: sources, subscriptions: book)
        var router = app.router()
        if signedIn { router.gate = SignedIn() }
        return router
    }

    func send(_ method: String, _ target: String, body: String = "", headers: HTTPHeaders = [:]) async throws
        -> Response
    {
        await router.respond(
            to: try Request(method: method, target: target, headers: headers, body: Array(body.utf8)))
    }

    func form(_ target: String, _ fields: [(String, String)]) async throws -> Response {
        let body = fields.map { "\($0.0)=\(FormEncoding.encode($0.1))" }.joined(separator: "&")
        return try await send(
            "POST", target, body: body, headers: ["Content-Type": "application/x-www-form-urlencoded"])
    }

    static func key(_ url: String) -> String { SubscriptionBookDouble.key(url) }

    // MARK: API

    @Test func subscribingAnswers201WithTheSourceAndItsLocation() async throws {
        let response = try await send(
            "POST", "/api/sources", body: #"{"url":"http://new.example/feed","title":"New","folder":"Later"}"#
        )
        #expect(response.status == 201)
        let key = Self.key("http://new.example/feed")
        #expect(response.headers["Location"] == "/api/sources/\(key)")
        let source = try Fixtures.json(response)
        #expect(source["key"] as? String == key)
        #expect(source["title"] as? String == "New")
        #expect(source["folder"] as? String == "Later")
        #expect(source["url"] as? String == "http://new.example/feed")
        let fetched = try await send("GET", "/api/sources/\(key)")
        #expect(fetched.status == 200)
        #expect(try Fixtures.json(fetched)["folder"] as? String == "Later")
    }

    @Test func severalFeedsAre409WithTheCandidates() async throws {
        let response = try await send("POST", "/api/sources", body: #"{"url":"http://several.example/"}"#)
        #expect(response.status == 409)
        let error = try #require(try Fixtures.json(response)["error"] as? [String: Any])
        #expect(error["code"] as? String == "several_feeds")
        let candidates = try #require(error["candidates"] as? [[String: Any]])
        #expect(
            candidates.map { $0["url"] as? String } == [
                "http://choice.example/rss.xml", "http://choice.example/atom.xml",
            ])
        #expect(candidates.map { $0["type"] as? String } == ["rss", "atom"])
        #expect(candidates[0]["title"] as? String == "Posts")
        #expect(candidates[1]["title"] is NSNull)
    }

    @Test func alreadySubscribedIs409WithTheKey() async throws {
        let response = try await send("POST", "/api/sources", body: #"{"url":"\#(Self.tech)"}"#)
        #expect(response.status == 409)
        let error = try #require(try Fixtures.json(response)["error"] as? [String: Any])
        #expect(error["code"] as? String == "already_subscribed")
        #expect(error["key"] as? String == Self.key(Self.tech))
        #expect(response.headers["Location"] == "/api/sources/\(Self.key(Self.tech))")
    }

    @Test(
        arguments: [
            ("http://nofeed.example/", 422, "no_feed"), ("http://private.example/", 422, "refused_address"),
            ("ftp://x", 422, "bad_address"), ("http://storage.example/", 503, "storage"),
        ])
    func refusalsMapToTheirStatus(url: String, status: Int, code: String) async throws {
        let response = try await send("POST", "/api/sources", body: #"{"url":"\#(url)"}"#)
        #expect(response.status == status)
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        let error = try #require(try Fixtures.json(response)["error"] as? [String: Any])
        #expect(error["code"] as? String == code)
        #expect((error["message"] as? String)?.isEmpty == false)
        if code == "storage" { #expect(response.headers["Retry-After"] != nil) }
    }

    @Test func everyCodeHasTheStatusItsDocumentationNames() {
        let expected: [SubscriptionError.Code: Int] = [
            .badAddress: 422, .refusedAddress: 422, .severalFeeds: 409, .noFeed: 422, .alreadySubscribed: 409,
            .unreachable: 422, .tooMany: 422, .notFound: 404, .operatorSource: 409, .badOPML: 400,
            .readOnly: 409, .storage: 503,
        ]
        for (code, status) in expected { #expect(SubscriptionError(code, "x").status == status, "\(code)") }
    }

    @Test(arguments: [
        "not json", "[1,2]", #"{"title":"no url"}"#, #"{"url":5}"#,
        #"{"url":"http://a.example/","folder":[]}"#,
    ])
    func badBodiesAre400(body: String) async throws {
        let response = try await send("POST", "/api/sources", body: body)
        #expect(response.status == 400)
        #expect(try Fixtures.json(response)["error"] != nil)
    }

    @Test func patchRenamesMovesAndClears() async throws {
        let key = Self.key(Self.loose)
        var response = try await send(
            "PATCH", "/api/sources/\(key)", body: #"{"title":"Loose","folder":"Later"}"#)
        #expect(response.status == 200)
        var source = try Fixtures.json(response)
        #expect(source["title"] as? String == "Loose")
        #expect(source["folder"] as? String == "Later")
        // Absent leaves as is; null clears.
        response = try await send("PATCH", "/api/sources/\(key)", body: #"{"folder":null}"#)
        source = try Fixtures.json(response)
        #expect(source["title"] as? String == "Loose")
        #expect(source["folder"] is NSNull)
        #expect(try await send("PATCH", "/api/sources/0123456789ab", body: "{}").status == 404)
        #expect(try await send("PATCH", "/api/sources/nope", body: "{}").status == 404)
        #expect(try await send("PATCH", "/api/sources/\(key)", body: "{").status == 400)
    }

    @Test func deleteIs204ThenTheSourceIsGone() async throws {
        let key = Self.key(Self.loose)
        let response = try await send("DELETE", "/api/sources/\(key)")
        #expect(response.status == 204)
        #expect(response.body.isEmpty)
        #expect(try await send("DELETE", "/api/sources/\(key)").status == 404)
        #expect(try await send("GET", "/api/sources/\(key)").status == 404)
        #expect(try await send("GET", "/?source=\(key)").status == 404)
    }

    @Test func theOperatorsSourcesAreNotRemovedFromHere() async throws {
        let response = try await send("DELETE", "/api/sources/\(Self.key(Self.news))")
        #expect(response.status == 409)
        #expect(
            (try Fixtures.json(response)["error"] as? [String: Any])?["code"] as? String == "operator_source")
    }

    @Test func opmlImportCountsAddedAndSkipped() async throws {
        let opml = """
            <?xml version="1.0"?><opml version="2.0"><body>
            <outline text="A"><outline type="rss" xmlUrl="http://a.example/feed"/></outline>
            <outline type="rss" xmlUrl="\(Self.tech)"/></body></opml>
            """
        let response = try await send(
            "POST", "/api/sources.opml", body: opml, headers: ["Content-Type": "text/x-opml"])
        #expect(response.status == 200)
        let outcome = try Fixtures.json(response)
        #expect(outcome["added"] as? Int == 1)
        #expect(outcome["skipped"] as? Int == 1)
        #expect(try await send("POST", "/api/sources.opml", body: "<html>").status == 400)
        let huge = String(repeating: "x", count: FeedApp.maxOPMLBytes + 1)
        #expect(try await send("POST", "/api/sources.opml", body: huge).status == 413)
    }

    @Test func withoutABookEveryChangeIsReadOnly() async throws {
        let router = try Self.router(book: nil, sources: CommandLineSources(book: book))
        let changes: [(String, String, String)] = [
            ("POST", "/api/sources", #"{"url":"http://a.example/"}"#),
            ("PATCH", "/api/sources/\(Self.key(Self.tech))", #"{"title":"x"}"#),
            ("DELETE", "/api/sources/\(Self.key(Self.tech))", ""),
            ("POST", "/api/sources.opml", "<opml/>"),
        ]
        for (method, target, body) in changes {
            let response = await router.respond(
                to: try Request(method: method, target: target, body: Array(body.utf8)))
            #expect(response.status == 409, "\(method) \(target)")
            #expect(
                (try Fixtures.json(response)["error"] as? [String: Any])?["code"] as? String == "read_only")
        }
        let page = Fixtures.text(await router.respond(to: try Request(method: "GET", target: "/feeds")))
        #expect(page.contains("--database FILE"))
        #expect(!page.contains("<form"))
        #expect(page.contains(Self.tech))
    }

    // MARK: Documents and the folder filter

    @Test func theListAndTheOPMLNameTheFolders() async throws {
        let list = try Fixtures.json(try await send("GET", "/api/sources"))
        #expect(list["folders"] as? [String] == ["News & Tech"])
        let sources = try #require(list["sources"] as? [[String: Any]])
        #expect(sources.map { $0["folder"] as? String } == ["News & Tech", "News & Tech", nil])
        #expect(sources.map { $0["origin"] as? String } == ["operator", "owner", "owner"])
        let opml = Fixtures.text(try await send("GET", "/api/sources.opml"))
        let folder = try #require(
            opml.range(of: "<outline text=\"News &amp; Tech\" title=\"News &amp; Tech\">"))
        let close = try #require(opml.range(of: "</outline>"))
        let inside = opml[folder.upperBound..<close.lowerBound]
        #expect(inside.contains(Self.news) && inside.contains(Self.tech) && !inside.contains(Self.loose))
        #expect(opml[close.upperBound...].contains(Self.loose))
    }

    @Test func folderFiltersTheRiverLikeSource() async throws {
        let folder = FormEncoding.encode("News & Tech")
        let items = try Fixtures.json(try await send("GET", "/api/items?folder=\(folder)"))
        let ids = try #require(items["items"] as? [[String: Any]]).compactMap { $0["id"] as? String }
        #expect(ids.count == 4)
        #expect(ids.allSatisfy { !$0.hasPrefix(Self.key(Self.loose)) })
        let page = try await send("GET", "/?folder=\(folder)")
        #expect(page.status == 200)
        let html = Fixtures.text(page)
        #expect(html.components(separatedBy: "data-item-id=").count - 1 == 4)
        #expect(html.contains("data-ptr-events-endpoint=\"/api/events?folder=News%20%26%20Tech\""))
        #expect(try await send("GET", "/?folder=Nowhere").status == 404)
        #expect(try await send("GET", "/api/items?folder=Nowhere").status == 404)
        #expect(try await send("GET", "/api/events?folder=Nowhere").status == 404)
        // Both: the source, when it is in that folder.
        let both = "/api/items?folder=\(folder)&source="
        #expect(try await send("GET", both + Self.key(Self.tech)).status == 200)
        #expect(try await send("GET", both + Self.key(Self.loose)).status == 404)
    }

    /// A folder's event stream counts the items of every source in it, and of no other.
    @Test func aFoldersEventsCountItsSourcesItems() {
        let keys = [Self.news, Self.tech, Self.loose].map(Self.key)
        let entries = keys.enumerated().map { index, key in
            FeedSnapshot.Entry(
                item: FeedItem(
                    id: RiverItemID.join(key: key, id: "new"), title: "new", body: "",
                    createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index))),
                addedIn: 3)
        }
        let snapshot = FeedSnapshot(
            version: 3, updatedAt: Date(timeIntervalSince1970: 1_700_000_000), entries: entries)
        let folder = Set(keys.prefix(2))
        let text = String(decoding: EventHub.event(snapshot, since: 2, sourceKeys: folder), as: UTF8.self)
        #expect(text.hasSuffix("\"added\":2}\n\n"))
        let whole = String(decoding: EventHub.event(snapshot, since: 2), as: UTF8.self)
        #expect(whole.hasSuffix("\"added\":3}\n\n"))
    }

    /// Moving a feed out of a folder changes what the folder's page shows without a new feed
    /// version: the cached page and its ETag must not be the old one's.
    @Test func aMoveChangesTheFoldersPageAtTheSameVersion() async throws {
        let folder = FormEncoding.encode("News & Tech")
        let before = try await send("GET", "/api/items?folder=\(folder)")
        #expect(
            try await send("PATCH", "/api/sources/\(Self.key(Self.tech))", body: #"{"folder":""}"#).status
                == 200)
        let after = try await send("GET", "/api/items?folder=\(folder)")
        #expect(before.headers["ETag"] != after.headers["ETag"])
        #expect(try #require(try Fixtures.json(after)["items"] as? [Any]).count == 2)
    }

    // MARK: The Feeds page

    @Test func theFeedsPageListsGroupsAndCarriesTheTokenInEveryForm() async throws {
        let response = try await send("GET", "/feeds")
        #expect(response.status == 200)
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(response.headers["Content-Security-Policy"] != nil)
        let html = Fixtures.text(response)
        let forms = html.components(separatedBy: "<form").count - 1
        let tokens = html.components(separatedBy: "name=\"csrf\" value=\"\(SignedIn.token)\"").count - 1
        // Add, import, and one edit form per source.
        #expect(forms == 5)
        #expect(tokens == forms)
        #expect(html.contains("enctype=\"multipart/form-data\""))
        #expect(html.contains("<a href=\"/?folder=News%20%26%20Tech\">News &amp; Tech</a>"))
        #expect(html.contains("href=\"/api/sources.opml\""))
        #expect(html.contains("href=\"/feeds/\(Self.key(Self.loose))/remove\""))
        #expect(html.contains("<option value=\"News &amp; Tech\" selected>"))
    }

    @Test func theOperatorsSourcesSayWhoSetThemInsteadOfARemoveLink() async throws {
        let html = Fixtures.text(try await send("GET", "/feeds"))
        let news = try #require(html.range(of: "id=\"source-\(Self.key(Self.news))\""))
        let tech = try #require(html.range(of: "id=\"source-\(Self.key(Self.tech))\""))
        let operatorItem = html[news.upperBound..<tech.lowerBound]
        #expect(operatorItem.contains("Set by the operator (--source)"))
        #expect(!operatorItem.contains("/remove\""))
        #expect(!operatorItem.contains("class=\"feeds-remove\""))
        // The owner's still have theirs, and no other item says it is the operator's.
        #expect(html.contains("href=\"/feeds/\(Self.key(Self.tech))/remove\""))
        #expect(html.components(separatedBy: "Set by the operator").count - 1 == 1)
        let japanese = Fixtures.text(try await send("GET", "/feeds?lang=ja"))
        #expect(japanese.contains("運用者が設定 (--source)"))
        // The confirmation step is not offered for them either: the page says why, at 409.
        let confirm = try await send("GET", "/feeds/\(Self.key(Self.news))/remove")
        #expect(confirm.status == 409)
        let text = Fixtures.text(confirm)
        #expect(text.contains("role=\"alert\">Set by the operator (--source)"))
        #expect(!text.contains("action=\"/feeds/\(Self.key(Self.news))/remove\""))
    }

    @Test(arguments: [("ja", "フィードを追加"), ("ko", "피드 추가"), ("tr", "Besleme ekle"), ("en", "Add a feed")])
    func theFeedsPageSpeaksEachLanguage(language: String, heading: String) async throws {
        let html = Fixtures.text(try await send("GET", "/feeds?lang=\(language)"))
        #expect(html.contains("lang=\"\(language)\""))
        #expect(html.contains(heading))
    }

    @Test func withABookAndNoOwnerThePageSaysHowToSetOne() async throws {
        let router = try Self.router(book: book, signedIn: false)
        let html = Fixtures.text(await router.respond(to: try Request(method: "GET", target: "/feeds")))
        #expect(html.contains("pullrefresh owner set-password --database FILE"))
        #expect(!html.contains("<form"))
    }

    @Test func addingByFormRedirectsToTheNotice() async throws {
        let response = try await form(
            "/feeds",
            [
                ("csrf", SignedIn.token), ("address", "http://new.example/feed"), ("title", ""),
                ("folder", "News & Tech"),
                ("newFolder", ""),
            ])
        #expect(response.status == 303)
        let key = Self.key("http://new.example/feed")
        let location = try #require(response.headers["Location"])
        #expect(location == "/feeds?done=added&key=\(key)#source-\(key)")
        #expect(book.label(forKey: key)?.folder == "News & Tech")
        let html = Fixtures.text(try await send("GET", String(location.prefix { $0 != "#" })))
        #expect(html.contains("role=\"status\">Added: <a href=\"/?source=\(key)\">new.example</a>"))
    }

    @Test func aNewFolderTypedInWins() async throws {
        let response = try await form(
            "/feeds/\(Self.key(Self.loose))",
            [
                ("csrf", SignedIn.token), ("title", "Renamed"), ("folder", "News & Tech"),
                ("newFolder", " Later "),
            ])
        #expect(response.status == 303)
        let label = try #require(book.label(forKey: Self.key(Self.loose)))
        #expect(label.title == "Renamed")
        #expect(label.folder == "Later")
    }

    @Test func severalFeedsByFormOfferAChooser() async throws {
        let response = try await form(
            "/feeds",
            [("csrf", SignedIn.token), ("address", "http://several.example/"), ("folder", "News & Tech")])
        #expect(response.status == 409)
        let html = Fixtures.text(response)
        #expect(
            html.contains("type=\"radio\" name=\"address\" value=\"http://choice.example/rss.xml\" checked"))
        #expect(html.contains("type=\"radio\" name=\"address\" value=\"http://choice.example/atom.xml\""))
        #expect(html.contains("<input type=\"hidden\" name=\"folder\" value=\"News &amp; Tech\">"))
        let chosen = try await form(
            "/feeds",
            [
                ("csrf", SignedIn.token), ("address", "http://choice.example/atom.xml"),
                ("folder", "News & Tech"),
            ])
        #expect(chosen.status == 303)
    }

    @Test func noFeedByFormIs422WithTheMessageAndTheAddressKept() async throws {
        let response = try await form(
            "/feeds", [("csrf", SignedIn.token), ("address", "http://nofeed.example/")])
        #expect(response.status == 422)
        let html = Fixtures.text(response)
        #expect(html.contains("role=\"alert\">No feed was found at http://nofeed.example/."))
        #expect(html.contains("value=\"http://nofeed.example/\""))
        #expect(response.headers["Cache-Control"] == "no-store")
    }

    @Test func alreadySubscribedByFormLinksTheSource() async throws {
        let response = try await form("/feeds", [("csrf", SignedIn.token), ("address", Self.tech)])
        #expect(response.status == 409)
        #expect(
            Fixtures.text(response).contains("<a href=\"/?source=\(Self.key(Self.tech))\">tech.example</a>"))
    }

    @Test func removalHasAConfirmationStepWithoutScripts() async throws {
        let key = Self.key(Self.loose)
        let confirm = Fixtures.text(try await send("GET", "/feeds/\(key)/remove"))
        #expect(confirm.contains("<form method=\"post\" action=\"/feeds/\(key)/remove\""))
        #expect(try await send("GET", "/feeds/0123456789ab/remove").status == 404)
        let response = try await form("/feeds/\(key)/remove", [("csrf", SignedIn.token)])
        #expect(response.status == 303)
        #expect(response.headers["Location"] == "/feeds?done=removed")
        #expect(book.label(forKey: key) == nil)
        let refused = try await form("/feeds/\(Self.key(Self.news))/remove", [("csrf", SignedIn.token)])
        #expect(refused.status == 409)
        #expect(Fixtures.text(refused).contains("role=\"alert\""))
    }

    @Test func importByUploadRedirectsWithTheCounts() async throws {
        let boundary = "----WebKitFormBoundaryAbc123"
        let opml = #"<opml version="2.0"><body><outline xmlUrl="http://up.example/feed"/></body></opml>"#
        let body = [
            "--\(boundary)", "Content-Disposition: form-data; name=\"csrf\"", "", SignedIn.token,
            "--\(boundary)", "Content-Disposition: form-data; name=\"opml\"; filename=\"subs.opml\"",
            "Content-Type: text/x-opml", "", opml, "--\(boundary)--", "",
        ].joined(separator: "\r\n")
        let response = try await send(
            "POST", "/feeds/import", body: body,
            headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"])
        #expect(response.status == 303)
        let location = try #require(response.headers["Location"])
        #expect(location == "/feeds?done=imported&added=1&skipped=0")
        #expect(Fixtures.text(try await send("GET", location)).contains("Imported: 1 added, 0 skipped."))
        let empty = try await send(
            "POST", "/feeds/import", body: "--\(boundary)--\r\n",
            headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"])
        #expect(empty.status == 400)
        let wrongType = try await send(
            "POST", "/feeds/import", body: "{}", headers: ["Content-Type": "application/json"])
        #expect(wrongType.status == 415)
    }

    @Test func theNoticeShowsOnlyFixedWordsAndNumbers() async throws {
        let html = Fixtures.text(
            try await send("GET", "/feeds?done=imported&added=%3Cb%3E&skipped=2&key=%3Cscript%3E"))
        #expect(html.contains("Imported: 0 added, 2 skipped."))
        #expect(!html.contains("<script>") && !html.contains("&lt;script"))
        #expect(!Fixtures.text(try await send("GET", "/feeds?done=%3Cb%3E")).contains("role=\"status\""))
    }

    // MARK: Share target and links

    @Test(
        arguments: [
            (
                "/share?title=Blog&text=Look%20at%20https%3A%2F%2Fblog.example%2Fpost%20now&url=",
                "https://blog.example/post"
            ),
            ("/share?url=http%3A%2F%2Fa.example%2F&text=https%3A%2F%2Fb.example%2F", "http://a.example/"),
            ("/share?title=https%3A%2F%2Ft.example%2F", "https://t.example/"),
            ("/share?text=no%20address%20here", ""),
        ])
    func sharingPrefillsTheAddForm(target: String, address: String) async throws {
        let response = try await send("GET", target)
        #expect(response.status == 200)
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(
            Fixtures.text(response).contains(
                "name=\"address\" type=\"text\" inputmode=\"url\" autocomplete=\"url\" autocapitalize=\"off\" spellcheck=\"false\" required maxlength=\"2048\" value=\"\(address)\""
            ))
    }

    @Test func theManifestSharesToShareAndTheRiverLinksTheFeedsPage() async throws {
        let manifest = try Fixtures.json(try await send("GET", "/manifest.webmanifest"))
        let target = try #require(manifest["share_target"] as? [String: Any])
        #expect(target["action"] as? String == "/share")
        #expect(target["method"] as? String == "GET")
        #expect(target["enctype"] as? String == "application/x-www-form-urlencoded")
        #expect(target["params"] as? [String: String] == ["title": "title", "text": "text", "url": "url"])
        let river = Fixtures.text(try await send("GET", "/"))
        #expect(river.contains("<a class=\"feed-feeds-link\" href=\"/feeds\">Feeds</a>"))
        #expect(!river.contains(SignedIn.token))
    }

    @Test func theNewRoutesAreTheOwnersButReadingOneSource() {
        let access = try! Self.router(book: book).routeAccess
        for route in access where route.path.hasPrefix("/feeds") || route.path == "/share" {
            #expect(route.access == .owner, "\(route.method) \(route.path)")
        }
        for route in access where route.path.hasPrefix("/api/sources") && route.method != "GET" {
            #expect(route.access == .owner, "\(route.method) \(route.path)")
        }
        #expect(
            access.contains { $0.method == "GET" && $0.path == "/api/sources/:key" && $0.access == .reader })
    }
}
