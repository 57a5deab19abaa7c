import Feed
import Foundation
import HTTPServer
import Logging

/// The Feeds page (`/feeds`) and its forms, usable without JavaScript: every change is a form
/// post answered with `303` back to the page and a notice (`?done=`), or the page again with
/// the message and the error's status. Rendered per request (it holds the session's CSRF token),
/// never stored.
extension FeedApp {
    /// What `?done=` may say (fixed words, never text from the request: the page holds a token).
    enum Done: String {
        case added, saved, removed, imported
    }

    /// `GET /feeds`.
    func feedsPage(_ request: Request) throws -> Response {
        var page = feedsPageModel(request)
        if let done = request.queryValue("done").flatMap(Done.init(rawValue:)) {
            let key = request.queryValue("key")
            page.highlight = key.flatMap { sources?.label(forKey: $0) }
            page.message = .notice(doneText(done, request: request, language: language(of: request)))
        }
        return try feedsResponse(page, request: request)
    }

    /// `GET /share?title=&text=&url=`: the share target; the add form with the shared address
    /// (Android often puts it inside `text`).
    func share(_ request: Request) throws -> Response {
        var page = feedsPageModel(request)
        page.address =
            ["url", "text", "title"].lazy.compactMap { request.queryValue($0).flatMap(Self.firstWebAddress) }
            .first ?? ""
        return try feedsResponse(page, request: request)
    }

    /// `GET /feeds/{key}/remove`: the confirmation step (a form, so it works without scripts).
    func removalPage(_ request: Request) throws -> Response {
        let key = try Self.key(request)
        guard let label = sources?.label(forKey: key) else {
            throw HTTPError(404, code: "not_found", message: "No feed has the source key '\(key)'.")
        }
        var page = feedsPageModel(request)
        if page.reports.first(where: { $0.label.key == key })?.isOperator == true {
            // Removed only from the command line: say so instead of offering a removal that fails.
            let strings = renderer.localizer.strings(for: language(of: request))
            page.message = .error(strings["feedsOperatorSource"] ?? "")
            page.highlight = label
            return try feedsResponse(page, request: request, status: 409)
        }
        page.confirmRemoval = label
        return try feedsResponse(page, request: request)
    }

    /// `POST /feeds`: subscribe (from the add form, or the chooser of several feeds).
    func formSubscribe(_ request: Request) async throws -> Response {
        let form = try FormFields(request, maxFileBytes: 0)
        var page = feedsPageModel(request)
        page.address = form.value("address") ?? ""
        page.title = form.value("title") ?? ""
        page.folder = Self.chosenFolder(form) ?? ""
        do throws(SubscriptionError) {
            let report = try await book().subscribe(
                SubscribeRequest(
                    address: page.address, title: form.nonEmpty("title"), folder: Self.chosenFolder(form)))
            logger.notice("subscribed to \(report.displayURL) as \(report.label.key)")
            return .redirect(to: "/feeds?done=added&key=\(report.label.key)#source-\(report.label.key)")
        } catch {
            logger.warning("POST /feeds refused (\(error.code.rawValue)): \(error.message)")
            page.message = .error(error.message)
            page.candidates = error.candidates
            page.highlight = error.existingKey.flatMap { sources?.label(forKey: $0) }
            return try feedsResponse(page, request: request, status: error.status)
        }
    }

    /// `POST /feeds/{key}`: rename and move (the title empty: the feed's own again).
    func formUpdate(_ request: Request) async throws -> Response {
        let key = try Self.key(request)
        let form = try FormFields(request, maxFileBytes: 0)
        do throws(SubscriptionError) {
            let report = try await book().update(
                key: key, title: form.value("title"), folder: Self.chosenFolder(form) ?? "")
            return .redirect(to: "/feeds?done=saved&key=\(report.label.key)#source-\(report.label.key)")
        } catch {
            return try formFailure(error, request: request)
        }
    }

    /// `POST /feeds/{key}/remove`: the confirmed removal.
    func formUnsubscribe(_ request: Request) async throws -> Response {
        let key = try Self.key(request)
        _ = try FormFields(request, maxFileBytes: 0)
        do throws(SubscriptionError) {
            try await book().unsubscribe(key: key)
            logger.notice("unsubscribed from \(key)")
            return .redirect(to: "/feeds?done=removed")
        } catch {
            return try formFailure(error, request: request)
        }
    }

    /// `POST /feeds/import`: an OPML file (`multipart/form-data`, field `opml`, at most 1 MiB).
    func formImport(_ request: Request) async throws -> Response {
        let form = try FormFields(request, maxFileBytes: Self.maxOPMLBytes)
        guard let document = form.files["opml"], !document.isEmpty else {
            let refusal = SubscriptionError(.badOPML, "Choose an OPML file to import.")
            return try formFailure(refusal, request: request)
        }
        do throws(SubscriptionError) {
            let outcome = try await book().importOPML(document)
            logger.notice("OPML import: \(outcome.added) added, \(outcome.skipped) skipped")
            return .redirect(to: "/feeds?done=imported&added=\(outcome.added)&skipped=\(outcome.skipped)")
        } catch {
            return try formFailure(error, request: request)
        }
    }

    // MARK: Parts

    /// The page for this request: editable when there is a book and someone allowed to change it.
    private func feedsPageModel(_ request: Request) -> FeedsPage {
        let mode: FeedsPage.Mode
        if subscriptions == nil {
            mode = .readOnly
        } else if request.principal == nil {
            // With a database there is always a gate; it lets nobody in anonymously to an owner's
            // page but while no owner is set (and then refuses every change).
            mode = .noOwner
        } else {
            mode = .editable
        }
        return FeedsPage(
            mode: mode, reports: sources?.reports ?? [], folders: folders,
            csrfToken: request.principal?.csrfToken)
    }

    private func feedsResponse(_ page: FeedsPage, request: Request, status: Int = 200) throws -> Response {
        let language = language(of: request)
        var headers = SecurityHeaders.html
        headers.set("Content-Type", "text/html; charset=utf-8")
        // Holds the session's CSRF token: never kept by a cache or the service worker.
        headers.set("Cache-Control", "no-store")
        return Response(status: status, headers: headers, body: try renderer.feeds(page, language: language))
    }

    /// A refused form: the page again with the message, at the error's status.
    private func formFailure(_ error: SubscriptionError, request: Request) throws -> Response {
        logger.warning("\(request.method) \(request.path) refused (\(error.code.rawValue)): \(error.message)")
        var page = feedsPageModel(request)
        page.message = .error(error.message)
        page.highlight = error.existingKey.flatMap { sources?.label(forKey: $0) }
        return try feedsResponse(page, request: request, status: error.status)
    }

    private func language(of request: Request) -> String {
        if let requested = request.queryValue("lang")?.lowercased(), renderer.localizer.supports(requested) {
            return requested
        }
        return renderer.localizer.negotiate(acceptLanguage: request.headers["Accept-Language"])
    }

    private func doneText(_ done: Done, request: Request, language: String) -> String {
        let strings = renderer.localizer.strings(for: language)
        switch done {
        case .added: return strings["feedsDoneAdded"] ?? ""
        case .saved: return strings["feedsDoneSaved"] ?? ""
        case .removed: return strings["feedsDoneRemoved"] ?? ""
        case .imported:
            // Numbers only: anything else in the query is dropped, never shown.
            let added = request.queryValue("added").flatMap { Int($0) } ?? 0
            let skipped = request.queryValue("skipped").flatMap { Int($0) } ?? 0
            return (strings["feedsDoneImported"] ?? "").replacingOccurrences(
                of: "{added}", with: String(added)
            )
            .replacingOccurrences(of: "{skipped}", with: String(skipped))
        }
    }

    /// The folder a form chose: a new one typed in wins over the list; nil for none.
    static func chosenFolder(_ form: FormFields) -> String? {
        form.nonEmpty("newFolder") ?? form.nonEmpty("folder")
    }

    /// The first `http://` or `https://` address in shared text, up to the next white space.
    static func firstWebAddress(_ text: String) -> String? {
        var best: Range<String.Index>?
        for scheme in ["https://", "http://"] {
            guard let found = text.range(of: scheme, options: .caseInsensitive) else { continue }
            if best == nil || found.lowerBound < best!.lowerBound { best = found }
        }
        guard let start = best?.lowerBound else { return nil }
        let tail = text[start...]
        let end = tail.firstIndex { $0.isWhitespace || $0 == "<" || $0 == ">" || $0 == "\"" } ?? tail.endIndex
        let address = String(tail[..<end])
        return address.count > "https://".count - 1 ? address : nil
    }
}
