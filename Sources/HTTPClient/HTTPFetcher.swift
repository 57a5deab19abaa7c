public import Foundation

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
        try await get(url, Self.feedOptions(etag: etag, lastModified: lastModified))
    }

    /// What a feed's conditional GET sends: feed types in `Accept`, and the validators.
    private static func feedOptions(etag: String?, lastModified: String?) -> TransferOptions {
        var options = TransferOptions(accept: feedAccept)
        options.etag = etag
        options.lastModified = lastModified
        return options
    }

    static let feedAccept =
        "application/feed+json, application/rss+xml, application/atom+xml, application/json;q=0.9, "
        + "application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1"

    /// Conditional GETs of many feeds (each `url` with the validators it is sent with), at most
    /// `concurrency` at once: each result as it comes, on one stream (``FetchBatch``).
    package func fetchAll(
        _ feeds: [(url: URL, etag: String?, lastModified: String?)], concurrency: Int
    ) -> AsyncStream<FetchBatch.Completion> {
        let requests = feeds.map { feed in
            FetchBatch.Request(
                url: feed.url, options: Self.feedOptions(etag: feed.etag, lastModified: feed.lastModified))
        }
        return FetchBatch.run(requests, limits: limits, concurrency: concurrency)
    }

    /// Why `url` is not fetched at all (it is not http or https), if it is not.
    static func refusal(of url: URL) -> UpstreamError? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return UpstreamError("\(url.absoluteString) is not an http or https URL")
        }
        return nil
    }

    /// One GET with `options`, on the ``TransferLoop``.
    func get(_ url: URL, _ options: TransferOptions) async throws(UpstreamError) -> FetchResponse {
        if let refused = Self.refusal(of: url) { throw refused }
        let limits = limits
        let result: Result<FetchResponse, UpstreamError> = await withCheckedContinuation { continuation in
            TransferLoop.shared.submit(
                Transfer(url, options, limits) { result in continuation.resume(returning: result) })
        }
        return try result.get()
    }
}
