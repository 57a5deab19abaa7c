public import Foundation

/// A successful response's body and headers.
public struct FetchedBody: Sendable, Equatable {
    /// The (decoded) body bytes.
    public var data: Data
    /// `Content-Type`, when sent.
    public var contentType: String?
    /// `ETag`, sent back as `If-None-Match`.
    public var etag: String?
    /// `Last-Modified`, sent back as `If-Modified-Since`.
    public var lastModified: String?
    /// The URL after redirects: relative links resolve against it.
    public var finalURL: URL
    /// Seconds the response stays fresh (`Cache-Control: max-age`, else `Expires` minus `Date`),
    /// when the upstream says: the schedule does not fetch again before that.
    public var freshFor: Double?

    /// Creates a body.
    public init(
        data: Data, contentType: String?, etag: String?, lastModified: String?, finalURL: URL,
        freshFor: Double? = nil
    ) {
        self.freshFor = freshFor
        self.data = data
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
        self.finalURL = finalURL
    }
}
