import CCurl
import Foundation

/// HTTP GETs through libcurl: connect and total timeouts, a body cap counted while reading,
/// at most `maxRedirects` redirects and only to http/https, `Accept-Encoding: gzip`, and
/// conditional requests. The only code that sees libcurl's pointers. Each transfer blocks one
/// of the ``TransferThreads`` (kept between transfers, with their handles and connections),
/// never Swift's cooperative pool.
public struct HTTPFetcher: Sendable {
    /// What every fetch may cost.
    public let limits: FetchLimits

    /// Creates a fetcher.
    public init(limits: FetchLimits) {
        self.limits = limits
        _ = Self.globalInit
    }

    private static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// GETs `url`, sending `etag` as `If-None-Match` and `lastModified` as `If-Modified-Since`.
    /// Throws ``UpstreamError`` for anything but a `2xx` or `304`.
    public func fetch(_ url: URL, etag: String? = nil, lastModified: String? = nil)
        async throws(UpstreamError)
        -> FetchResponse
    {
        let limits = limits
        let result: Result<FetchResponse, UpstreamError> = await withCheckedContinuation { continuation in
            TransferThreads.shared.run { handle in
                continuation.resume(
                    returning: Self.perform(
                        url, etag: etag, lastModified: lastModified, limits, handle: handle))
            }
        }
        return try result.get()
    }

    /// Collects the body; libcurl calls ``write`` with each decoded chunk.
    private final class Sink {
        var data = Data()
        let maxBytes: Int
        var overLimit = false

        init(maxBytes: Int) {
            self.maxBytes = maxBytes
        }
    }

    private static let write: pullrefresh_curl_write = { pointer, size, count, context in
        guard let pointer, let context else { return 0 }
        let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        guard sink.data.count + length <= sink.maxBytes else {
            sink.overLimit = true
            return 0  // anything but `length` aborts the transfer
        }
        pointer.withMemoryRebound(to: UInt8.self, capacity: length) { sink.data.append($0, count: length) }
        return length
    }

    /// One transfer on `handle` (fresh, or reset by ``TransferThreads``: options cleared, its
    /// connection cache kept).
    private static func perform(
        _ url: URL, etag: String?, lastModified: String?, _ limits: FetchLimits,
        handle: UnsafeMutableRawPointer?
    )
        -> Result<FetchResponse, UpstreamError>
    {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return .failure(UpstreamError("\(url.absoluteString) is not an http or https URL"))
        }
        guard let handle else {
            return .failure(UpstreamError("libcurl could not start", reason: .transport))
        }
        let sink = Sink(maxBytes: limits.maxBytes)
        var headers: UnsafeMutablePointer<curl_slist>?
        headers = curl_slist_append(
            headers,
            "Accept: application/feed+json, application/rss+xml, application/atom+xml, application/json;q=0.9, "
                + "application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1")
        if let etag { headers = curl_slist_append(headers, "If-None-Match: \(etag)") }
        if let lastModified { headers = curl_slist_append(headers, "If-Modified-Since: \(lastModified)") }
        defer { curl_slist_free_all(headers) }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errorBytes in
            pullrefresh_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorBytes.baseAddress)
            pullrefresh_curl_set_string(handle, CURLOPT_URL, url.absoluteString)
            pullrefresh_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
            pullrefresh_curl_set_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
            pullrefresh_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 1)
            pullrefresh_curl_set_long(handle, CURLOPT_MAXREDIRS, limits.maxRedirects)
            pullrefresh_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(limits.connectTimeout * 1000))
            pullrefresh_curl_set_long(handle, CURLOPT_TIMEOUT_MS, Int(limits.totalTimeout * 1000))
            pullrefresh_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
            pullrefresh_curl_set_string(handle, CURLOPT_ACCEPT_ENCODING, "gzip")
            pullrefresh_curl_set_string(handle, CURLOPT_USERAGENT, limits.userAgent)
            pullrefresh_curl_set_pointer(handle, CURLOPT_HTTPHEADER, headers)
            pullrefresh_curl_set_write(handle, write)
            return withExtendedLifetime(sink) {
                pullrefresh_curl_set_pointer(
                    handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque())
                return curl_easy_perform(handle)
            }
        }
        let host = url.host ?? url.absoluteString
        guard code == CURLE_OK else {
            if sink.overLimit {
                return .failure(
                    UpstreamError(
                        "\(host) sent more than the limit of \(limits.maxBytes) bytes", reason: .limit))
            }
            let detail = String(
                decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let reason = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            switch code {
            case CURLE_OPERATION_TIMEDOUT:
                // A connection reused from the handle's cache has no connect time; a request that
                // went out (a non-zero request size) means we were connected either way.
                var connectTime = 0.0
                pullrefresh_curl_get_double(handle, CURLINFO_CONNECT_TIME, &connectTime)
                var requestBytes = 0
                pullrefresh_curl_get_long(handle, CURLINFO_REQUEST_SIZE, &requestBytes)
                let phase =
                    connectTime == 0 && requestBytes == 0
                    ? "could not be connected to within \(limits.connectTimeout) s"
                    : "did not finish within \(limits.totalTimeout) s"
                return .failure(UpstreamError("\(host) timed out: it \(phase) (\(reason))", reason: .timeout))
            case CURLE_TOO_MANY_REDIRECTS:
                return .failure(
                    UpstreamError("\(host) redirected more than \(limits.maxRedirects) times", reason: .limit)
                )
            default:
                return .failure(UpstreamError("fetching from \(host) failed: \(reason)", reason: .transport))
            }
        }
        func string(_ info: CURLINFO) -> String? {
            var value: UnsafeMutablePointer<CChar>?
            guard pullrefresh_curl_get_string(handle, info, &value) == CURLE_OK, let value else { return nil }
            return String(cString: value)
        }
        func header(_ name: String) -> String? {
            var found: UnsafeMutablePointer<curl_header>?
            // -1: the last request of the transfer, i.e. after redirects.
            guard curl_easy_header(handle, name, 0, UInt32(CURLH_HEADER), -1, &found) == CURLHE_OK,
                let value = found?.pointee.value
            else { return nil }
            return String(cString: value)
        }
        var status = 0
        pullrefresh_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
        let freshFor = CacheHeaders.freshness(
            cacheControl: header("Cache-Control"), expires: header("Expires"), date: header("Date"))
        if status == 304 { return .success(.notModified(freshFor: freshFor)) }
        guard (200...299).contains(status), status != 204 else {
            // Only these two statuses ask a client to come back later (RFC 9110 §10.2.3).
            let retryAfter =
                status == 429 || status == 503 ? CacheHeaders.retryAfter(header("Retry-After")) : nil
            return .failure(
                UpstreamError("\(host) answered HTTP \(status)", reason: .http, retryAfter: retryAfter))
        }
        let finalURL = string(CURLINFO_EFFECTIVE_URL).flatMap(URL.init(string:)) ?? url
        return .success(
            .body(
                FetchedBody(
                    data: sink.data, contentType: string(CURLINFO_CONTENT_TYPE), etag: header("ETag"),
                    lastModified: header("Last-Modified"), finalURL: finalURL, freshFor: freshFor)))
    }
}
