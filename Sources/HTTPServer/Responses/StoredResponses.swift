import CMicroHTTPD
import Foundation
import Synchronization

/// The server's store of responses the app marked reusable (``Response/reusable(while:isAt:)``):
/// a request that matches one is answered with it before a ``Request`` value is even built,
/// which is how a cached page costs the server about what a plain C server spends on it.
///
/// It follows a shared HTTP cache's rules for one's own responses (RFC 9111 §4.1): a stored
/// response answers a later `GET` or `HEAD` for the same target (path and query, byte for byte)
/// whose fields named in the response's `Vary` have the same values as the storing request's,
/// while the app's content is still at the response's version. The validators
/// (`If-None-Match`, `If-Modified-Since`) count as named too, so a `304` the app marked is
/// stored for requests with the very same validator. Everything else is routed: other methods,
/// requests with a body, without `Host` (HTTP/1.1), with a named field repeated; responses
/// with `Vary: *` or more than four names are not stored. The store is bounded: at `capacity`,
/// the oldest entry makes room (after any whose content moved on).
final class StoredResponses: Sendable {
    private let entries = Mutex<[StoredResponse]>([])
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// How many responses are stored (for tests).
    var count: Int { entries.withLock { $0.count } }

    /// What ``match(isGETOrHEAD:path:query:http11:connection:)`` found in one pass over the fields.
    /// Unchecked: the pointer is libmicrohttpd's, used on the calling thread during the call.
    struct Match: @unchecked Sendable {
        /// The response to send if still current when due, or nil to route the request.
        let entry: StoredResponse?
        /// The request's `X-Request-Id` field (libmicrohttpd's C string), or nil.
        let sentRequestID: UnsafePointer<CChar>?
        /// Whether the request has (or claims) a body.
        let hasBodyFraming: Bool
    }

    /// The stored response for a request, looked for once its header fields are in (the first
    /// handler call); nil when nothing is stored for its method and target (the fields were
    /// not read).
    func match(
        isGETOrHEAD: Bool, path: UnsafePointer<CChar>, query: Substring, http11: Bool,
        connection: OpaquePointer
    ) -> Match? {
        // Only `GET` and `HEAD` (answered by the `GET` route) are stored and answered.
        guard isGETOrHEAD else { return nil }
        let length = strlen(path)
        // All under the lock (a scan of a few header fields): copying the list out costs more.
        return entries.withLock { entries -> Match? in
            guard
                let first = entries.firstIndex(where: { $0.isFor(path: path, length: length, query: query) })
            else { return nil }
            let scan = HeaderScan(names: entries[first].key.varyNames, connection: connection)
            var found: StoredResponse?
            if scan.allowsStoredResponse(http11: http11) {
                // Entries for one target share their `Vary` names (``remember`` keeps it so).
                found = entries[first...].first { entry in
                    entry.isFor(path: path, length: length, query: query) && entry.matches(scan)
                }
            }
            // Whether it is still current is asked when the answer is due (the last handler call).
            return Match(entry: found, sentRequestID: scan.requestID, hasBodyFraming: scan.hasBodyFraming)
        }
    }

    /// Stores `response` for later requests like this one when it is marked reusable and the
    /// request and response qualify (see the type's documentation). `access` is its route's
    /// when a gate guards it (``Router/guardedAccess(ofRouteAt:)``): the gate then decides each reuse.
    func remember(
        _ response: Response, method: String, path: String, query: Substring, headers: HTTPHeaders,
        access: Access? = nil
    ) {
        // A marked response is a prepared one (``Response/reusable(while:isAt:)``).
        guard let condition = response.reuse, let prepared = response.preparedHandle,
            Self.isStorable(method: method), condition.isCurrent, let names = Self.keyNames(response.headers)
        else { return }
        var values: [[UInt8]?] = []
        for name in names {
            let sent = headers.values(for: String(decoding: name, as: UTF8.self))
            guard sent.count <= 1 else { return }
            values.append(sent.first.map { Array($0.utf8) })
        }
        let key = StoredResponse.Key(
            path: Array(path.utf8), query: Array(query.utf8), varyNames: names, varyValues: values)
        let entry = StoredResponse(
            key: key, response: response, prepared: prepared, condition: condition, access: access)
        entries.withLock { entries in
            // Same target: the same request again (replaced), or an older `Vary` (dropped).
            entries.removeAll { old in
                old.key.path == key.path && old.key.query == key.query
                    && (old.key.varyNames != names || old.key == key)
            }
            if entries.count >= capacity { entries.removeAll { !$0.condition.isCurrent } }
            if entries.count >= capacity { entries.removeFirst() }
            entries.append(entry)
        }
    }

    /// Only `GET` and `HEAD` (answered by the `GET` route) are stored and answered.
    private static func isStorable(method: String) -> Bool {
        method == "GET" || method == "HEAD"
    }

    /// The request fields whose values select a stored response: the response's `Vary` names
    /// and the validators; nil when it may not be stored.
    static func keyNames(_ headers: HTTPHeaders) -> [[UInt8]]? {
        guard var names = varyNames(headers) else { return nil }
        for validator in ["if-none-match", "if-modified-since"] where !names.contains(Array(validator.utf8)) {
            names.append(Array(validator.utf8))
        }
        return names
    }

    /// The lowercase names in a response's `Vary` fields, or nil when it may not be stored
    /// (`*`, or more than four names).
    static func varyNames(_ headers: HTTPHeaders) -> [[UInt8]]? {
        var names: [[UInt8]] = []
        for field in headers.values(for: "Vary") {
            for part in field.split(separator: ",") {
                let name = part.trimmingCharacters(in: .whitespaces).lowercased()
                if name.isEmpty { continue }
                if name == "*" { return nil }
                let bytes = Array(name.utf8)
                if !names.contains(bytes) { names.append(bytes) }
            }
        }
        return names.count <= HeaderScan.maxNames - 2 ? names : nil
    }
}
