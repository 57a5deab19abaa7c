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
        var options = TransferOptions(accept: Self.feedAccept)
        options.etag = etag
        options.lastModified = lastModified
        return try await get(url, options)
    }

    static let feedAccept =
        "application/feed+json, application/rss+xml, application/atom+xml, application/json;q=0.9, "
        + "application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1"

    /// One GET with `options`, on one of the kept transfer threads.
    func get(_ url: URL, _ options: TransferOptions) async throws(UpstreamError) -> FetchResponse {
        let limits = limits
        let result: Result<FetchResponse, UpstreamError> = await withCheckedContinuation { continuation in
            TransferThreads.shared.run { handle in
                continuation.resume(returning: Self.perform(url, options, limits, handle: handle))
            }
        }
        return try result.get()
    }

    /// Collects the body; libcurl calls ``write`` with each decoded chunk.
    /// Collects the body, and checks each address before libcurl connects to it
    /// (``openSocket``) and the `Content-Type` before the first byte is kept.
    private final class Sink {
        var data = Data()
        let maxBytes: Int
        var overLimit = false
        let options: TransferOptions
        let handle: UnsafeMutableRawPointer?
        /// The address refused by ``TransferOptions/addressPolicy``, if any.
        var blockedAddress: [UInt8]?
        /// The `Content-Type` refused by ``TransferOptions/acceptsContentType``, if any.
        var refusedContentType: String??
        private var contentTypeChecked = false

        init(maxBytes: Int, options: TransferOptions, handle: UnsafeMutableRawPointer?) {
            self.maxBytes = maxBytes
            self.options = options
            self.handle = handle
        }

        /// Whether the response's `Content-Type` is acceptable; checked once.
        func contentTypeIsAccepted() -> Bool {
            guard let accepts = options.acceptsContentType else { return true }
            if contentTypeChecked { return refusedContentType == nil }
            contentTypeChecked = true
            var value: UnsafeMutablePointer<CChar>?
            pullrefresh_curl_get_string(handle, CURLINFO_CONTENT_TYPE, &value)
            let contentType = value.map { String(cString: $0) }
            if accepts(contentType) { return true }
            refusedContentType = .some(contentType)
            return false
        }
    }

    private static let write: pullrefresh_curl_write = { pointer, size, count, context in
        guard let pointer, let context else { return 0 }
        let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        guard sink.contentTypeIsAccepted() else { return 0 }
        guard sink.data.count + length <= sink.maxBytes else {
            sink.overLimit = true
            return 0  // anything but `length` aborts the transfer
        }
        pointer.withMemoryRebound(to: UInt8.self, capacity: length) { sink.data.append($0, count: length) }
        return length
    }

    /// libcurl asks for each connection's socket here, with the address it resolved: a refused
    /// address gets no socket, so nothing is sent to it.
    private static let openSocket: pullrefresh_curl_open_socket = { context, _, address in
        guard let context, let address else { return CURL_SOCKET_BAD }
        let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
        if let policy = sink.options.addressPolicy {
            var bytes = [UInt8](repeating: 0, count: 16)
            let count = Int(pullrefresh_curl_address_bytes(address, &bytes))
            let connected = Array(bytes.prefix(count))
            guard count > 0, policy.allows(connected) else {
                sink.blockedAddress = connected
                return CURL_SOCKET_BAD
            }
        }
        return pullrefresh_curl_open(address)
    }

    /// One transfer on `keptHandle` (fresh, or reset by ``TransferThreads``: options cleared, its
    /// connection cache kept), or on a handle of its own when `options` need one.
    private static func perform(
        _ url: URL, _ options: TransferOptions, _ limits: FetchLimits,
        handle keptHandle: UnsafeMutableRawPointer?
    )
        -> Result<FetchResponse, UpstreamError>
    {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return .failure(UpstreamError("\(url.absoluteString) is not an http or https URL"))
        }
        // A checked transfer (a picture: an address policy, pinned names) gets a handle of its
        // own: a kept handle's connection cache may hold a connection no policy checked, and
        // names pinned with CURLOPT_RESOLVE stay in a handle's DNS cache after a reset.
        let ownHandle = options.needsOwnHandle ? curl_easy_init() : nil
        defer { if let ownHandle { curl_easy_cleanup(ownHandle) } }
        guard let handle = options.needsOwnHandle ? ownHandle : keptHandle else {
            return .failure(UpstreamError("libcurl could not start", kind: .transport))
        }
        let sink = Sink(maxBytes: limits.maxBytes, options: options, handle: handle)
        var headers: UnsafeMutablePointer<curl_slist>?
        headers = curl_slist_append(headers, "Accept: \(options.accept)")
        if let etag = options.etag { headers = curl_slist_append(headers, "If-None-Match: \(etag)") }
        if let lastModified = options.lastModified {
            headers = curl_slist_append(headers, "If-Modified-Since: \(lastModified)")
        }
        defer { curl_slist_free_all(headers) }
        var resolve: UnsafeMutablePointer<curl_slist>?
        for entry in options.resolve { resolve = curl_slist_append(resolve, entry) }
        defer { curl_slist_free_all(resolve) }
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
            pullrefresh_curl_set_off(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limits.maxBytes))
            if resolve != nil { pullrefresh_curl_set_pointer(handle, CURLOPT_RESOLVE, resolve) }
            if options.addressPolicy != nil {
                // A proxy from the environment would be the address connected to, and it would
                // reach whatever the URL names: checked fetches go direct.
                pullrefresh_curl_set_string(handle, CURLOPT_PROXY, "")
                pullrefresh_curl_set_open_socket(handle, openSocket)
            }
            pullrefresh_curl_set_write(handle, write)
            return withExtendedLifetime(sink) {
                let context = Unmanaged.passUnretained(sink).toOpaque()
                pullrefresh_curl_set_pointer(handle, CURLOPT_WRITEDATA, context)
                pullrefresh_curl_set_pointer(handle, CURLOPT_OPENSOCKETDATA, context)
                return curl_easy_perform(handle)
            }
        }
        let host = url.host ?? url.absoluteString
        // A refused address is the failure's cause only if the transfer failed: libcurl may
        // have gone on to another (allowed) address of the same name.
        if code != CURLE_OK, let blocked = sink.blockedAddress {
            return .failure(
                UpstreamError(
                    "\(host) led to \(Self.text(of: blocked)), an address inside the network, which is refused",
                    kind: .blockedAddress))
        }
        if code != CURLE_OK, let refused = sink.refusedContentType {
            return .failure(
                UpstreamError(
                    "\(host) sent \(refused ?? "no Content-Type"), which is refused", kind: .contentType))
        }
        guard code == CURLE_OK else {
            if sink.overLimit || code == CURLE_FILESIZE_EXCEEDED {
                return .failure(
                    UpstreamError(
                        "\(host) sent more than the limit of \(limits.maxBytes) bytes", kind: .tooLarge))
            }
            let detail = String(
                decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let reason = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            switch code {
            case CURLE_OPERATION_TIMEDOUT:
                var connected = 0.0
                pullrefresh_curl_get_double(handle, CURLINFO_CONNECT_TIME, &connected)
                let phase =
                    connected == 0
                    ? "could not be connected to within \(limits.connectTimeout) s"
                    : "did not finish within \(limits.totalTimeout) s"
                return .failure(UpstreamError("\(host) timed out: it \(phase) (\(reason))", kind: .timeout))
            case CURLE_TOO_MANY_REDIRECTS:
                return .failure(
                    UpstreamError(
                        "\(host) redirected more than \(limits.maxRedirects) times", kind: .redirects))
            default:
                return .failure(UpstreamError("fetching from \(host) failed: \(reason)", kind: .transport))
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
                UpstreamError("\(host) answered HTTP \(status)", kind: .status, retryAfter: retryAfter))
        }
        // An empty body never reached the write callback's check.
        guard sink.contentTypeIsAccepted() else {
            return .failure(
                UpstreamError(
                    "\(host) sent \((sink.refusedContentType ?? nil) ?? "no Content-Type"), which is refused",
                    kind: .contentType))
        }
        let finalURL = string(CURLINFO_EFFECTIVE_URL).flatMap(URL.init(string:)) ?? url
        return .success(
            .body(
                FetchedBody(
                    data: sink.data, contentType: string(CURLINFO_CONTENT_TYPE), etag: header("ETag"),
                    lastModified: header("Last-Modified"), finalURL: finalURL, freshFor: freshFor)))
    }

    /// `127.0.0.2`, `fe80:0:…`: an address's bytes for the log.
    static func text(of address: [UInt8]) -> String {
        if address.count == 4 { return address.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: address.count, by: 2).map { index in
            String(UInt16(address[index]) << 8 | UInt16(address[index + 1]), radix: 16)
        }.joined(separator: ":")
    }
}
