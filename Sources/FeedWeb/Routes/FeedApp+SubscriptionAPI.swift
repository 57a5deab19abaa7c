import Feed
import Foundation
import HTTPServer
import Logging

/// `POST /api/sources`, `GET`/`PATCH`/`DELETE /api/sources/{key}` and `POST /api/sources.opml`:
/// the subscriptions for programs (an app with a token, or the page's own scripts).
extension FeedApp {
    /// The largest OPML document accepted (upload or body).
    static let maxOPMLBytes = 1 << 20

    /// Registers the Feeds page's and the API's routes for changing subscriptions: every one the
    /// owner's (the router's default), but reading one source, which is the river's like the list.
    func addSubscriptionRoutes(to router: inout Router) {
        router.post("/api/sources") { request in await self.apiSubscribe(request) }
        router.post("/api/sources.opml") { request in await self.apiImport(request) }
        router.get("/api/sources/:key", access: .reader) { request in try self.apiSource(request) }
        router.on("PATCH", "/api/sources/:key", .async({ request in await self.apiUpdate(request) }))
        router.on("DELETE", "/api/sources/:key", .async({ request in await self.apiUnsubscribe(request) }))
        router.get("/feeds") { request in try self.feedsPage(request) }
        router.post("/feeds") { request in try await self.formSubscribe(request) }
        // Before `/feeds/:key`, which would otherwise take `import` for a key.
        router.post("/feeds/import") { request in try await self.formImport(request) }
        router.post("/feeds/:key") { request in try await self.formUpdate(request) }
        router.get("/feeds/:key/remove") { request in try self.removalPage(request) }
        router.post("/feeds/:key/remove") { request in try await self.formUnsubscribe(request) }
        router.get("/share") { request in try self.share(request) }
    }

    // MARK: Handlers

    func apiSubscribe(_ request: Request) async -> Response {
        do {
            let object = try Self.jsonObject(request.body)
            guard case .some(.some(let url)) = try Self.string(object, "url") else {
                throw HTTPError.badRequest(
                    "The body needs \"url\": the address of a feed or a site.", code: "bad_request")
            }
            let subscribe = SubscribeRequest(
                address: url, title: try Self.string(object, "title") ?? nil,
                folder: try Self.string(object, "folder") ?? nil)
            let report = try await book().subscribe(subscribe)
            logger.notice("subscribed to \(report.displayURL) as \(report.label.key)")
            return Response(
                status: 201,
                headers: [
                    "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store",
                    "Location": "/api/sources/\(report.label.key)",
                ],
                body: SourceDocuments.json(report))
        } catch {
            return apiFailure(error, request: request)
        }
    }

    func apiSource(_ request: Request) throws -> Response {
        let key = try Self.key(request)
        guard let report = sources?.reports.first(where: { $0.label.key == key }) else {
            throw HTTPError(404, code: "not_found", message: "No feed has the source key '\(key)'.")
        }
        return Self.sourceResponse(report)
    }

    func apiUpdate(_ request: Request) async -> Response {
        do {
            let key = try Self.key(request)
            let object = try Self.jsonObject(request.body)
            // Absent: left as it is; null or "": cleared (the book's empty string).
            let title = try Self.string(object, "title").map { $0 ?? "" }
            let folder = try Self.string(object, "folder").map { $0 ?? "" }
            let report = try await book().update(key: key, title: title, folder: folder)
            return Self.sourceResponse(report)
        } catch {
            return apiFailure(error, request: request)
        }
    }

    func apiUnsubscribe(_ request: Request) async -> Response {
        do {
            let key = try Self.key(request)
            try await book().unsubscribe(key: key)
            logger.notice("unsubscribed from \(key)")
            return Response(status: 204, headers: ["Cache-Control": "no-store"])
        } catch {
            return apiFailure(error, request: request)
        }
    }

    func apiImport(_ request: Request) async -> Response {
        do {
            guard request.body.count <= Self.maxOPMLBytes else {
                throw HTTPError(
                    413, code: "payload_too_large", message: "The OPML document is larger than 1 MiB.")
            }
            let outcome = try await book().importOPML(request.body)
            logger.notice("OPML import: \(outcome.added) added, \(outcome.skipped) skipped")
            var writer = JSONWriter(capacity: 96)
            writer.raw("{\"added\":")
            writer.number(outcome.added)
            writer.raw(",\"skipped\":")
            writer.number(outcome.skipped)
            writer.raw(",\"problems\":[")
            for (position, problem) in outcome.problems.enumerated() {
                if position > 0 { writer.raw(",") }
                writer.string(problem)
            }
            writer.raw("]}")
            return Response(
                headers: ["Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store"],
                body: writer.bytes)
        } catch {
            return apiFailure(error, request: request)
        }
    }

    // MARK: Parts

    /// The subscription book, or the `read_only` refusal without one.
    func book() throws(SubscriptionError) -> any SubscriptionBook {
        guard let subscriptions else { throw SubscriptionError.readOnlyHere }
        return subscriptions
    }

    private static func sourceResponse(_ report: SourceReport) -> Response {
        Response(
            headers: ["Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store"],
            body: SourceDocuments.json(report))
    }

    /// The `{key}` of the path: 12 hex digits, else a `404` (no source can have it).
    static func key(_ request: Request) throws(HTTPError) -> String {
        let key = request.parameters["key"] ?? ""
        guard SourceLabel.isWellFormedKey(key) else {
            throw HTTPError(404, code: "not_found", message: "No feed has the source key '\(key)'.")
        }
        return key
    }

    /// The error envelope for a refused change: a ``SubscriptionError`` with its status and what
    /// the caller needs to go on (`candidates`, `key`), else the usual envelope.
    func apiFailure(_ error: any Error, request: Request) -> Response {
        guard let refusal = error as? SubscriptionError else {
            let failure = (error as? any HTTPResponseError) ?? HTTPError(500, message: "Internal error.")
            if failure.status >= 500 { logger.error("\(request.method) \(request.path): \(error)") }
            return jsonError(failure)
        }
        logger.warning(
            "\(request.method) \(request.path) refused (\(refusal.code.rawValue)): \(refusal.message)")
        var headers: HTTPHeaders = [:]
        if refusal.code == .storage { headers.set("Retry-After", "5") }
        if let key = refusal.existingKey { headers.set("Location", "/api/sources/\(key)") }
        let envelope = HTTPError(
            refusal.status, code: refusal.code.rawValue, message: refusal.message, headers: headers)
        return jsonError(envelope) { writer in
            if refusal.code == .severalFeeds {
                writer.raw(",\"candidates\":[")
                for (position, candidate) in refusal.candidates.enumerated() {
                    if position > 0 { writer.raw(",") }
                    writer.raw("{\"url\":")
                    writer.string(candidate.url)
                    writer.raw(",\"title\":")
                    if let title = candidate.title { writer.string(title) } else { writer.null() }
                    writer.raw(",\"type\":")
                    writer.string(candidate.type)
                    writer.raw("}")
                }
                writer.raw("]")
            }
            if let key = refusal.existingKey {
                writer.raw(",\"key\":")
                writer.string(key)
            }
        }
    }

    /// The body as a JSON object, else a `400`.
    static func jsonObject(_ body: [UInt8]) throws(HTTPError) -> [String: Any] {
        guard let value = try? JSONSerialization.jsonObject(with: Data(body)),
            let object = value as? [String: Any]
        else {
            throw HTTPError.badRequest("The body must be a JSON object.", code: "bad_json")
        }
        return object
    }

    /// Field `name` of `object`: nil when absent, `.some(nil)` when null, else its string; any
    /// other type is a `400`.
    static func string(_ object: [String: Any], _ name: String) throws(HTTPError) -> String?? {
        guard let value = object[name] else { return nil }
        if value is NSNull { return .some(nil) }
        guard let text = value as? String else {
            throw HTTPError.badRequest("\"\(name)\" must be a string.", code: "bad_json")
        }
        return .some(text)
    }
}
