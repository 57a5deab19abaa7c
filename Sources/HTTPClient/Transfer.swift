import CCurl
import Foundation
import Glibc

/// One GET on the ``TransferLoop``: the easy handle's options, the context of libcurl's
/// callbacks (body, address check, `Content-Type` check) and, once libcurl says it is done, the
/// ``FetchResponse`` or ``UpstreamError`` it came to.
///
/// `@unchecked Sendable`: the submitting task only creates it; from ``TransferLoop/submit(_:)``
/// on, every field is read and written on the loop's one thread (libcurl calls ``write`` and
/// ``openSocket`` there, inside `curl_multi_perform`), and ``complete`` is called once, there.
final class Transfer: @unchecked Sendable {
    let url: URL
    let options: TransferOptions
    let limits: FetchLimits
    private let completion: @Sendable (Result<FetchResponse, UpstreamError>) -> Void

    /// The easy handle while the transfer runs.
    private(set) var handle: UnsafeMutableRawPointer?
    /// A DNS cache of this transfer's own (checked transfers): see ``attach(to:ownHandle:)``.
    private var ownDNSCache: UnsafeMutableRawPointer?
    private var headers: UnsafeMutablePointer<curl_slist>?
    private var resolve: UnsafeMutablePointer<curl_slist>?
    /// libcurl writes its message for a failure here (`CURLOPT_ERRORBUFFER`).
    private let errorBuffer: UnsafeMutablePointer<CChar>

    private var data = Data()
    private var overLimit = false
    /// The address refused by ``TransferOptions/addressPolicy``, if any.
    private var blockedAddress: [UInt8]?
    /// The `Content-Type` refused by ``TransferOptions/acceptsContentType``, if any.
    private var refusedContentType: String??
    private var contentTypeChecked = false

    init(
        _ url: URL, _ options: TransferOptions, _ limits: FetchLimits,
        completion: @escaping @Sendable (Result<FetchResponse, UpstreamError>) -> Void
    ) {
        self.url = url
        self.options = options
        self.limits = limits
        self.completion = completion
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        curl_slist_free_all(headers)
        curl_slist_free_all(resolve)
        errorBuffer.deallocate()
    }

    /// Hands the result to the waiting task; called once, on the loop thread.
    func complete(_ result: Result<FetchResponse, UpstreamError>) {
        completion(result)
    }

    /// Sets every option of this transfer on `handle` (fresh, or reset: options cleared).
    ///
    /// A checked transfer (``TransferOptions/needsOwnHandle``: a picture, with an address policy
    /// or pinned names) runs on a handle of its own, cleaned up after, and shares nothing with
    /// the other transfers of the multi handle: `CURLOPT_FRESH_CONNECT` so it never takes a kept
    /// connection (one no policy checked: the check is made when a socket is opened, so only a
    /// new connection is a checked one), `CURLOPT_FORBID_REUSE` so its own connections are
    /// closed rather than kept for an unchecked transfer, and a DNS cache of its own (a share
    /// object), because names pinned with `CURLOPT_RESOLVE` would otherwise stay in the multi
    /// handle's cache for every later transfer. A second multi handle for checked transfers
    /// would still let one picture reuse another's connection and pins, which each policy and
    /// pin list must not.
    func attach(to handle: UnsafeMutableRawPointer, ownHandle: Bool) {
        self.handle = handle
        headers = curl_slist_append(headers, "Accept: \(options.accept)")
        if let etag = options.etag { headers = curl_slist_append(headers, "If-None-Match: \(etag)") }
        if let lastModified = options.lastModified {
            headers = curl_slist_append(headers, "If-Modified-Since: \(lastModified)")
        }
        for entry in options.resolve { resolve = curl_slist_append(resolve, entry) }
        pullrefresh_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
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
        if ownHandle {
            pullrefresh_curl_set_long(handle, CURLOPT_FRESH_CONNECT, 1)
            pullrefresh_curl_set_long(handle, CURLOPT_FORBID_REUSE, 1)
            ownDNSCache = curl_share_init()
            if let ownDNSCache, pullrefresh_curl_share_dns(ownDNSCache) == CURLSHE_OK {
                pullrefresh_curl_set_pointer(handle, CURLOPT_SHARE, ownDNSCache)
            }
        }
        if resolve != nil { pullrefresh_curl_set_pointer(handle, CURLOPT_RESOLVE, resolve) }
        if options.addressPolicy != nil {
            // A proxy from the environment would be the address connected to, and it would
            // reach whatever the URL names: checked fetches go direct.
            pullrefresh_curl_set_string(handle, CURLOPT_PROXY, "")
            pullrefresh_curl_set_open_socket(handle, Self.openSocket)
        }
        pullrefresh_curl_set_write(handle, Self.write)
        // Unretained: the loop holds the transfer until libcurl is done with the handle.
        let context = Unmanaged.passUnretained(self).toOpaque()
        pullrefresh_curl_set_pointer(handle, CURLOPT_WRITEDATA, context)
        pullrefresh_curl_set_pointer(handle, CURLOPT_OPENSOCKETDATA, context)
    }

    /// Frees this transfer's own DNS cache; after its (own) handle was cleaned up, which
    /// detaches it.
    func releaseOwnDNSCache() {
        if let ownDNSCache { curl_share_cleanup(ownDNSCache) }
        ownDNSCache = nil
        handle = nil
    }

    /// Whether the response's `Content-Type` is acceptable; checked once.
    private func contentTypeIsAccepted() -> Bool {
        guard let accepts = options.acceptsContentType else { return true }
        if contentTypeChecked { return refusedContentType == nil }
        contentTypeChecked = true
        let contentType = string(CURLINFO_CONTENT_TYPE)
        if accepts(contentType) { return true }
        refusedContentType = .some(contentType)
        return false
    }

    /// libcurl calls this with each decoded chunk of the body.
    private static let write: pullrefresh_curl_write = { pointer, size, count, context in
        guard let pointer, let context else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        guard transfer.contentTypeIsAccepted() else { return 0 }
        guard transfer.data.count + length <= transfer.limits.maxBytes else {
            transfer.overLimit = true
            return 0  // anything but `length` aborts the transfer
        }
        pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
            transfer.data.append($0, count: length)
        }
        return length
    }

    /// libcurl asks for each connection's socket here, with the address it resolved: a refused
    /// address gets no socket, so nothing is sent to it.
    private static let openSocket: pullrefresh_curl_open_socket = { context, _, address in
        guard let context, let address else { return CURL_SOCKET_BAD }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        if let policy = transfer.options.addressPolicy {
            var bytes = [UInt8](repeating: 0, count: 16)
            let count = Int(pullrefresh_curl_address_bytes(address, &bytes))
            let connected = Array(bytes.prefix(count))
            guard count > 0, policy.allows(connected) else {
                transfer.blockedAddress = connected
                return CURL_SOCKET_BAD
            }
        }
        return pullrefresh_curl_open(address)
    }

    /// What the finished transfer came to, `code` being libcurl's result for it. Reads the
    /// handle's info, so it is called before the handle is reset or cleaned up.
    func outcome(_ code: CURLcode) -> Result<FetchResponse, UpstreamError> {
        // Only messages need it, and most transfers end well.
        var host: String { url.host ?? url.absoluteString }
        // A refused address is the failure's cause only if the transfer failed: libcurl may
        // have gone on to another (allowed) address of the same name.
        if code != CURLE_OK, let blocked = blockedAddress {
            return .failure(
                UpstreamError(
                    "\(host) led to \(Self.text(of: blocked)) (\(AddressRange.of(blocked).rawValue)), an address "
                        + "inside the network, which is refused",
                    kind: .blockedAddress))
        }
        if code != CURLE_OK, let refused = refusedContentType {
            return .failure(Self.contentTypeRefusal(refused, host: host))
        }
        guard code == CURLE_OK else { return .failure(failure(code, host: host)) }
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
        guard contentTypeIsAccepted() else {
            return .failure(Self.contentTypeRefusal(refusedContentType ?? nil, host: host))
        }
        let finalURL = string(CURLINFO_EFFECTIVE_URL).flatMap(URL.init(string:)) ?? url
        return .success(
            .body(
                FetchedBody(
                    data: data, contentType: string(CURLINFO_CONTENT_TYPE), etag: header("ETag"),
                    lastModified: header("Last-Modified"), finalURL: finalURL, freshFor: freshFor)))
    }

    /// The error for a `Content-Type` (nil: none sent) that ``TransferOptions/acceptsContentType``
    /// refused.
    private static func contentTypeRefusal(_ contentType: String?, host: String) -> UpstreamError {
        UpstreamError(
            "\(host) sent \(contentType ?? "no Content-Type"), which is refused", kind: .contentType)
    }

    /// `127.0.0.2`, `::ffff:127.0.0.1`: an address's bytes for messages, as `inet_ntop` writes them.
    static func text(of address: [UInt8]) -> String {
        if address.count == 4 { return address.map(String.init).joined(separator: ".") }
        guard address.count == 16 else { return address.map(String.init).joined(separator: ".") }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written = address.withUnsafeBytes {
            inet_ntop(AF_INET6, $0.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard written != nil else { return address.map { String($0, radix: 16) }.joined(separator: ":") }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The error for a transfer libcurl failed with `code`.
    private func failure(_ code: CURLcode, host: String) -> UpstreamError {
        if overLimit || code == CURLE_FILESIZE_EXCEEDED {
            return UpstreamError(
                "\(host) sent more than the limit of \(limits.maxBytes) bytes", kind: .tooLarge)
        }
        let detail = String(cString: errorBuffer)
        let reason = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            // A connection reused from the cache has no connect time; a request that went out
            // (a non-zero request size) means we were connected either way.
            var connectTime = 0.0
            pullrefresh_curl_get_double(handle, CURLINFO_CONNECT_TIME, &connectTime)
            var requestBytes = 0
            pullrefresh_curl_get_long(handle, CURLINFO_REQUEST_SIZE, &requestBytes)
            let phase =
                connectTime == 0 && requestBytes == 0
                ? "could not be connected to within \(limits.connectTimeout) s"
                : "did not finish within \(limits.totalTimeout) s"
            return UpstreamError("\(host) timed out: it \(phase) (\(reason))", kind: .timeout)
        case CURLE_TOO_MANY_REDIRECTS:
            return UpstreamError(
                "\(host) redirected more than \(limits.maxRedirects) times", kind: .redirects)
        default:
            return UpstreamError("fetching from \(host) failed: \(reason)", kind: .transport)
        }
    }

    private func string(_ info: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard pullrefresh_curl_get_string(handle, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    private func header(_ name: String) -> String? {
        var found: UnsafeMutablePointer<curl_header>?
        // -1: the last request of the transfer, i.e. after redirects.
        guard curl_easy_header(handle, name, 0, UInt32(CURLH_HEADER), -1, &found) == CURLHE_OK,
            let value = found?.pointee.value
        else { return nil }
        return String(cString: value)
    }
}
