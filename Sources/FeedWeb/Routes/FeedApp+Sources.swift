import Feed
import HTTPServer

/// The routes and parts of routes that exist for a river of feeds.
extension FeedApp {
    /// `?source=KEY` or `?folder=NAME`: the part of the river to show, or nil without either.
    /// Not a key is a `400`; a key of no configured source, or a folder no source is in, a `404`
    /// (a link from an earlier configuration should say so, not show an empty river). Both: the
    /// source, which must be in that folder (else `404`).
    func riverFilter(_ request: borrowing Request) throws(HTTPError) -> RiverFilter? {
        let folder = request.queryValue("folder")
        if let key = request.queryValue("source") {
            guard SourceLabel.isWellFormedKey(key) else {
                throw HTTPError.badRequest(
                    "Query parameter 'source' must be a source key (12 hex digits, see /api/sources).",
                    code: "invalid_source")
            }
            guard let label = sources?.label(forKey: key), folder == nil || label.folder == folder else {
                let place = folder.map { " in the folder '\($0)'" } ?? ""
                throw HTTPError(
                    404, code: "unknown_source", message: "No feed\(place) has the source key '\(key)'.")
            }
            return RiverFilter(source: label)
        }
        guard let folder else { return nil }
        let members = (sources?.reports ?? []).filter { $0.label.folder == folder }.map(\.label.key)
        guard !members.isEmpty else {
            throw HTTPError(404, code: "unknown_folder", message: "No feed is in a folder named '\(folder)'.")
        }
        return RiverFilter(folder: folder, members: members)
    }

    /// The folders in use: the book's when there is one.
    var folders: [String] {
        subscriptions?.folders ?? SourceDocuments.folders(of: sources?.reports ?? [])
    }

    /// `GET /api/sources`: every source and how its fetches go (never cached: the state moves
    /// without new versions).
    func sourcesList(_ request: Request) throws -> Response {
        Response(
            headers: ["Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store"],
            body: SourceDocuments.json(sources?.reports ?? [], folders: folders))
    }

    /// `GET /api/sources.opml`: the sources as an OPML 2.0 subscription list.
    func sourcesOPML(_ request: Request) throws -> Response {
        Response(
            headers: [
                "Content-Type": "text/x-opml; charset=utf-8", "Cache-Control": "no-store",
                "Content-Disposition": "attachment; filename=\"pullrefresh-sources.opml\"",
            ],
            body: SourceDocuments.opml(sources?.reports ?? [], title: "PullRefresh sources"))
    }

    /// `/healthz`'s parts for a river: `"source"` as before when there is one source, and
    /// `"sources":{"ok":N,"failing":[…]}`.
    func healthOfSources(_ sources: any SourceDirectory, into writer: inout JSONWriter) {
        let reports = sources.reports
        if reports.count == 1, let only = reports.first {
            writer.raw(only.isFailing ? ",\"source\":{\"ok\":false,\"error\":" : ",\"source\":{\"ok\":true")
            if let error = only.lastError { writer.string(error) }
            if !only.isFailing, let recovered = only.recovered {
                writer.raw(",\"recovered\":")
                writer.string(recovered)
            }
            writer.raw("}")
        }
        SourceDocuments.health(reports, into: &writer)
    }
}
