import Compression
import HTTPServer

/// A cacheable body in every encoding worth sending: identity, and gzip and brotli when the body
/// is at least ``minimumCompressedSize`` bytes and the coding makes it smaller. Every variant's
/// `200` and `304` responses are prepared once for the server, so a request only negotiates and
/// picks one; nothing is compressed on the request path.
///
/// Each encoding has its own strong ETag (the identity tag with `-gz` or `-br` before the
/// closing quote); an `If-None-Match` naming any of them gets the `304` of the chosen variant,
/// which carries that variant's ETag. Negotiable representations send
/// `Vary: Accept-Encoding`, the identity variant too.
final class Representation: Sendable {
    /// One encoding's prepared responses; a class, so choosing one per request costs one retain.
    final class Variant: Sendable {
        let coding: ContentCoding
        let etag: String?
        let ok: Response
        let notModified: Response?

        init(coding: ContentCoding, etag: String?, ok: Response, notModified: Response?) {
            self.coding = coding
            self.etag = etag
            self.ok = ok
            self.notModified = notModified
        }
    }

    /// Bodies smaller than this are sent as they are: the saving would not pay for the headers.
    static let minimumCompressedSize = 1024

    let identity: Variant
    let gzip: Variant?
    let brotli: Variant?

    /// Builds the variants. `etag` nil means no validator (and no `304`); `compression` nil
    /// means the body is not negotiable (e.g. an image), so no `Vary: Accept-Encoding`. With
    /// `reusableAt`, the `200`s may be stored by the server and sent again without routing
    /// while the content stays at that version (``Response/reusable(while:isAt:)``): only for
    /// bodies that depend on nothing but the target and the fields `headers` name in `Vary`.
    init(
        status: Int = 200, etag: String?, headers: HTTPHeaders, body: [UInt8],
        compression: CompressionEffort? = .perVersion,
        reusableAt reuse: (content: any VersionedContent, version: Int)? = nil
    ) {
        var headers = headers
        if compression != nil {
            headers.set("Vary", headers["Vary"].map { "\($0), Accept-Encoding" } ?? "Accept-Encoding")
        }
        func variant(_ coding: ContentCoding, bytes: [UInt8]) -> Variant {
            var fields = headers
            let tag = etag.map { Self.etag($0, for: coding) }
            if coding != .identity { fields.set("Content-Encoding", coding.rawValue) }
            if let tag { fields.set("ETag", tag) }
            var bare = fields
            bare.remove("Content-Type")
            bare.remove("Content-Encoding")
            var ok = Response(status: status, headers: fields, body: bytes).prepared()
            // The 304 carries the Content-Length of this variant's 200, as RFC 9110 §8.6 asks.
            var notModified = tag == nil ? nil : ok.notModified(headers: bare)
            if let reuse {
                ok = ok.reusable(while: reuse.content, isAt: reuse.version)
                notModified = notModified?.reusable(while: reuse.content, isAt: reuse.version)
            }
            return Variant(coding: coding, etag: tag, ok: ok, notModified: notModified)
        }
        identity = variant(.identity, bytes: body)
        func compressed(_ coding: ContentCoding) -> Variant? {
            guard let compression, body.count >= Self.minimumCompressedSize,
                let bytes = coding.encode(body, effort: compression), bytes.count < body.count
            else { return nil }
            return variant(coding, bytes: bytes)
        }
        gzip = compressed(.gzip)
        brotli = compressed(.br)
    }

    /// The identity ETag, for callers that only need the version's validator.
    var etag: String? { identity.etag }

    /// The variant `Accept-Encoding` asks for.
    func variant(acceptEncoding header: String?) -> Variant {
        switch AcceptEncoding.choose(header, brotli: brotli != nil, gzip: gzip != nil) {
        case .br: brotli ?? identity
        case .gzip: gzip ?? identity
        case .identity: identity
        }
    }

    /// The response for a request: the negotiated variant, or its `304` when `If-None-Match`
    /// names the ETag of any variant.
    func response(to request: Request) -> Response {
        let chosen = variant(acceptEncoding: request.headers["Accept-Encoding"])
        // Most requests carry no validator: only then is the 304 looked at (and copied).
        if let header = request.headers["If-None-Match"], let notModified = chosen.notModified,
            matches(header)
        {
            return notModified
        }
        return chosen.ok
    }

    private func matches(_ header: String) -> Bool {
        func matches(_ variant: Variant?) -> Bool {
            guard let tag = variant?.etag else { return false }
            return ConditionalRequest.matches(header, etag: tag)
        }
        return matches(identity) || matches(gzip) || matches(brotli)
    }

    /// `"abc"` → `"abc-gz"` / `"abc-br"`; identity keeps the tag.
    static func etag(_ tag: String, for coding: ContentCoding) -> String {
        let suffix: String
        switch coding {
        case .identity: return tag
        case .gzip: suffix = "-gz"
        case .br: suffix = "-br"
        }
        guard tag.hasSuffix("\"") else { return tag + suffix }
        return String(tag.dropLast()) + suffix + "\""
    }
}
