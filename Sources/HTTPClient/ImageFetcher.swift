public import Foundation

/// Fetches an item's picture for the thumbnail proxy: the fetcher's timeouts and redirect
/// bound, at most ``maxBytes``, only image `Content-Type`s (JPEG, PNG, WebP, GIF, AVIF/HEIF;
/// never SVG, which is a document that can run script, nor HTML), and never an address inside
/// the network (``AddressPolicy``, checked on every address actually connected to).
public struct ImageFetcher: Sendable {
    /// The largest original accepted: 8 MiB.
    public static let maxBytes = 8 << 20

    /// The `Content-Type`s accepted, without parameters.
    public static let acceptedTypes: Set<String> = [
        "image/jpeg", "image/jpg", "image/pjpeg", "image/png", "image/webp", "image/gif", "image/avif",
        "image/heif", "image/heic",
    ]

    private let fetcher: HTTPFetcher
    /// Which addresses may be connected to.
    public let policy: AddressPolicy
    /// `CURLOPT_RESOLVE` entries (`host:port:address`), for tests that pin a name to an address.
    public let resolve: [String]

    /// Creates a fetcher; `limits.maxBytes` is lowered to ``maxBytes`` when larger.
    public init(
        limits: FetchLimits = FetchLimits(), policy: AddressPolicy = .publicOnly, resolve: [String] = []
    ) {
        var limits = limits
        limits.maxBytes = min(limits.maxBytes, Self.maxBytes)
        fetcher = HTTPFetcher(limits: limits)
        self.policy = policy
        self.resolve = resolve
    }

    /// The original's bytes and `Content-Type`. Throws ``UpstreamError`` with its
    /// ``UpstreamError/kind`` saying why (blocked address, content type, too large, …).
    public func fetch(_ url: URL) async throws(UpstreamError) -> FetchedBody {
        var options = TransferOptions(accept: "image/avif,image/webp,image/png,image/jpeg,image/gif;q=0.9")
        options.addressPolicy = policy
        options.resolve = resolve
        options.acceptsContentType = { Self.accepts(contentType: $0) }
        switch try await fetcher.get(url, options) {
        case .body(let body): return body
        case .notModified:
            // Nothing conditional was sent, so a 304 is the host's error.
            throw UpstreamError("\(url.host ?? "the image host") answered 304 to a plain GET", kind: .status)
        }
    }

    /// Whether `contentType` (parameters ignored, any case) is an accepted image type.
    public static func accepts(contentType: String?) -> Bool {
        guard let contentType else { return false }
        let bare = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return acceptedTypes.contains(bare.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
