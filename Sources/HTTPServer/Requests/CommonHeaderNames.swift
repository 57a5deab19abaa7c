import Foundation

/// The request header names browsers and HTTP clients send, as strings made once.
///
/// Every request's header names become Swift strings for ``HTTPHeaders``; `String(cString:)`
/// measures, validates and copies each one, a browser sends a dozen, and they are nearly always
/// these spellings (Go's net/http keeps a similar table). Anything else is decoded as usual.
enum CommonHeaderNames {
    private static let names: [CStringConstant] = [
        "Host", "Connection", "User-Agent", "Accept", "Accept-Encoding", "Accept-Language",
        "Cache-Control", "Pragma", "Upgrade-Insecure-Requests", "Referer", "Cookie", "Origin",
        "Content-Type", "Content-Length", "If-None-Match", "If-Modified-Since", "X-Request-Id",
        "Last-Event-ID", "Priority", "DNT", "Sec-Fetch-Site", "Sec-Fetch-Mode", "Sec-Fetch-Dest",
        "Sec-Fetch-User", "sec-ch-ua", "sec-ch-ua-mobile", "sec-ch-ua-platform", "Service-Worker",
        "X-Forwarded-For", "X-Forwarded-Proto",
    ].map(CStringConstant.init)

    /// The name as a string: the table's when it is one of those spellings, else decoded.
    static func string(_ name: UnsafePointer<CChar>) -> String {
        let length = strlen(name)
        for entry in names where entry.length == length && memcmp(entry.pointer, name, length) == 0 {
            return entry.text
        }
        return String(cString: name)
    }
}
