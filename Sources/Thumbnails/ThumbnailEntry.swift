import HTTPServer
import Images

/// One made thumbnail's prepared `200` and `304`: built once, sent as they are.
final class ThumbnailEntry: Sendable {
    let etag: String
    let ok: Response
    let notModified: Response
    /// What the entry holds in memory, counted against the cache's bound: the body twice (the
    /// Swift bytes and libmicrohttpd's copy of them) and a kilobyte for headers and objects.
    let cost: Int

    init(_ thumbnail: Thumbnail) {
        etag = EntityTag.of(thumbnail.bytes)
        var headers: HTTPHeaders = [
            "Cache-Control": "public, max-age=604800, immutable",
            "Vary": "Accept",
            "ETag": etag,
        ]
        var bare = headers
        bare.remove("Content-Type")
        headers.set("Content-Type", thumbnail.format.contentType)
        headers.set("X-Content-Type-Options", "nosniff")
        ok = Response(headers: headers, body: thumbnail.bytes).prepared()
        notModified = Response(status: 304, headers: bare).prepared()
        cost = thumbnail.bytes.count * 2 + 1024
    }

    /// The `304` when `If-None-Match` names this entry's ETag, else the `200`; storable by the
    /// server while `content` stays at `version` (the item's image URL is read at a revision of
    /// the store: see ``ImageIndex``).
    func response(ifNoneMatch: String?, content: any VersionedContent, version: Int) -> Response {
        let chosen = ifNoneMatch.map { ConditionalRequest.matches($0, etag: etag) } == true ? notModified : ok
        return chosen.reusable(while: content, isAt: version)
    }
}
