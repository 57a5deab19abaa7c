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
    /// With a `policy` (feeds the owner added), every address connected to, redirects included,
    /// must be allowed by it, and an address literal it refuses is refused before any
    /// connection; nil (the operator's `--source`) connects anywhere. Throws ``UpstreamError``
    /// for anything but a `2xx` or `304`.
    public func fetch(
        _ url: URL, etag: String? = nil, lastModified: String? = nil, policy: AddressPolicy? = nil
    )
        async throws(UpstreamError)
        -> FetchResponse
    {
        try await get(url, Self.feedOptions(etag: etag, lastModified: lastModified, policy: policy))
    }

    /// What a feed's conditional GET sends: feed types in `Accept`, and the validators; and the
    /// addresses it may reach.
    private static func feedOptions(etag: String?, lastModified: String?, policy: AddressPolicy?)
        -> TransferOptions
    {
        var options = TransferOptions(accept: feedAccept)
        options.etag = etag
        options.lastModified = lastModified
        options.addressPolicy = policy
        return options
    }

    static let feedAccept =
        "application/feed+json, application/rss+xml, application/atom+xml, application/json;q=0.9, "
        + "application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1"

    /// One conditional GET of a batch (``fetchAll(_:concurrency:)``).
    package struct FeedRequest: Sendable {
        /// The feed.
        package var url: URL
        /// Sent as `If-None-Match`.
        package var etag: String?
        /// Sent as `If-Modified-Since`.
        package var lastModified: String?
        /// The addresses this fetch may connect to, as in ``HTTPFetcher/fetch(_:etag:lastModified:policy:)``
        /// (nil: any, the operator's sources).
        package var policy: AddressPolicy?

        /// Creates a request.
        package init(url: URL, etag: String? = nil, lastModified: String? = nil, policy: AddressPolicy? = nil)
        {
            self.url = url
            self.etag = etag
            self.lastModified = lastModified
            self.policy = policy
        }
    }

    /// Conditional GETs of many feeds (each `url` with the validators it is sent with), at most
    /// `concurrency` at once: each result as it comes, on one stream (``FetchBatch``).
    package func fetchAll(
        _ feeds: [(url: URL, etag: String?, lastModified: String?)], concurrency: Int
    ) -> AsyncStream<FetchBatch.Completion> {
        fetchAll(
            feeds.map { FeedRequest(url: $0.url, etag: $0.etag, lastModified: $0.lastModified) },
            concurrency: concurrency)
    }

    /// Conditional GETs of many feeds, each with its validators and its own address policy (a
    /// river mixes the operator's sources, unchecked, with the owner's, checked), at most
    /// `concurrency` at once: each result as it comes, on one stream (``FetchBatch``).
    package func fetchAll(_ feeds: [FeedRequest], concurrency: Int) -> AsyncStream<FetchBatch.Completion> {
        let requests = feeds.map { feed in
            FetchBatch.Request(
                url: feed.url,
                options: Self.feedOptions(
                    etag: feed.etag, lastModified: feed.lastModified, policy: feed.policy))
        }
        return FetchBatch.run(requests, limits: limits, concurrency: concurrency)
    }

    /// Why `url` is not fetched at all, if it is not: it is not http or https, or `policy`
    /// refuses its host, an address literal (any spelling: ``HostAddress``).
    static func refusal(of url: URL, policy: AddressPolicy?) -> UpstreamError? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return UpstreamError("\(url.absoluteString) is not an http or https URL")
        }
        if let policy, let refused = policy.refusal(of: url) {
            return UpstreamError(refused, kind: .blockedAddress)
        }
        return nil
    }

    /// One GET with `options`, on the ``TransferLoop``.
    func get(_ url: URL, _ options: TransferOptions) async throws(UpstreamError) -> FetchResponse {
        if let refused = Self.refusal(of: url, policy: options.addressPolicy) { throw refused }
        let limits = limits
        let result: Result<FetchResponse, UpstreamError> = await withCheckedContinuation { continuation in
            TransferLoop.shared.submit(
                Transfer(url, options, limits) { result in continuation.resume(returning: result) })
        }
        return try result.get()
    }
}
