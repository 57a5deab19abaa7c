import Foundation

/// HTTP GETs through libcurl: connect and total timeouts, a body cap counted while reading,
/// at most `maxRedirects` redirects and only to http/https, `Accept-Encoding: gzip`, and
/// conditional requests. Each transfer is a ``Transfer`` on the ``TransferLoop`` (one thread, one
/// libcurl multi handle, kept easy handles and connections), never Swift's cooperative pool;
/// those two are the only code that sees libcurl's pointers.
public struct HTTPFetcher: Sendable {
    /// What every fetch may cost.
    public let limits: FetchLimits

    /// Creates a fetcher.
    public init(limits: FetchLimits) {
        self.limits = limits
    }

    /// GETs `url`, sending `etag` as `If-None-Match` and `lastModified` as `If-Modified-Since`.
    /// Throws ``UpstreamError`` for anything but a `2xx` or `304`.
    public func fetch(_ url: URL, etag: String? = nil, lastModified: String? = nil)
        async throws(UpstreamError)
        -> FetchResponse
    {
        var options = TransferOptions(accept: Self.feedAccept)
        options.etag = etag
        options.lastModified = lastModified
        return try await get(url, options)
    }

    static let feedAccept =
        "application/feed+json, application/rss+xml, application/atom+xml, application/json;q=0.9, "
        + "application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1"

    /// One GET with `options`, on the ``TransferLoop``.
    func get(_ url: URL, _ options: TransferOptions) async throws(UpstreamError) -> FetchResponse {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw UpstreamError("\(url.absoluteString) is not an http or https URL")
        }
        let limits = limits
        let result: Result<FetchResponse, UpstreamError> = await withCheckedContinuation { continuation in
            TransferLoop.shared.submit(
                Transfer(url, options, limits) { result in continuation.resume(returning: result) })
        }
        return try result.get()
    }
}
