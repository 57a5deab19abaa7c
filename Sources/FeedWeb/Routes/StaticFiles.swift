import Compression
public import Feed
import Foundation
public import HTTPServer
import Synchronization

/// Serves files from `Public/` under `/static/`: no listings, no way out of the folder, an ETag
/// from the content, and an in-memory copy refreshed when the file's size or mtime change
/// (checked at most once a second per file, so a hot asset costs no system call). Responses
/// may be stored by the server for as long as that check is trusted (``FileCheck``).
public struct StaticFiles: Sendable {
    private struct Entry {
        var modified: timespec
        var size: Int
        var representation: Representation
        var checked: ContinuousClock.Instant
    }

    private final class Cache: Sendable {
        let entries = Mutex<[String: Entry]>([:])
    }

    /// The resolved, canonical folder.
    public let root: String
    /// Files larger than this are not served (Public/ holds small assets).
    public let maxFileSize: Int
    private let cache = Cache()

    /// Resolves `directory`; throws if it does not exist or is not a folder.
    public init(directory: String, maxFileSize: Int = 8 << 20) throws(FeedError) {
        guard let resolved = realpath(directory, nil) else {
            throw FeedError("public folder \(directory) does not exist or cannot be read")
        }
        defer { free(resolved) }
        let path = String(
            decoding: UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)), as: UTF8.self)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue,
            access(path, R_OK | X_OK) == 0
        else {
            throw FeedError("public folder \(directory) is not a readable folder")
        }
        root = path
        self.maxFileSize = maxFileSize
    }

    /// Answers `GET /static/<relative>`; `relative` is the decoded rest of the path.
    public func respond(relative: String, request: Request) throws(HTTPError) -> Response {
        guard Self.isServable(relative) else { throw HTTPError.notFound("No such file.") }
        let now = ContinuousClock.now
        if let fresh = cache.entries.withLock({ entries -> Entry? in
            guard let entry = entries[relative], now - entry.checked < FileCheck.trust else { return nil }
            return entry
        }) {
            return Self.reusable(fresh.representation.response(to: request), checked: fresh.checked)
        }
        guard let entry = load(relative, now: now) else { throw HTTPError.notFound("No such file.") }
        return Self.reusable(entry.representation.response(to: request), checked: entry.checked)
    }

    /// `response`, storable by the server while the check of its file is trusted.
    private static func reusable(_ response: Response, checked: ContinuousClock.Instant) -> Response {
        response.reusable(while: FileCheck(checked: checked), isAt: FileCheck.trusted)
    }

    /// Hidden files, empty segments and dot segments are never served, nor backslashes or NULs;
    /// a decoded `..` (from `%2e%2e`) is caught here too, as the path was decoded exactly once.
    static func isServable(_ relative: String) -> Bool {
        if let servable = relative.utf8.withContiguousStorageIfAvailable(isServable) { return servable }
        return isServable(Array(relative.utf8))
    }

    /// The check over the path's bytes (a buffer: it runs on every static request).
    private static func isServable<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Bool {
        var segmentStart = true
        for byte in bytes {
            switch byte {
            case 47:
                if segmentStart { return false }
                segmentStart = true
                continue
            case 46 where segmentStart, 92, 0:
                return false
            default:
                break
            }
            segmentStart = false
        }
        return !segmentStart
    }

    private func load(_ relative: String, now: ContinuousClock.Instant) -> Entry? {
        let path = root + "/" + relative
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) <= maxFileSize
        else {
            cache.entries.withLock { _ = $0.removeValue(forKey: relative) }
            return nil
        }
        let unchanged = cache.entries.withLock { entries -> Entry? in
            guard var cached = entries[relative], cached.size == Int(info.st_size),
                cached.modified.tv_sec == info.st_mtim.tv_sec, cached.modified.tv_nsec == info.st_mtim.tv_nsec
            else { return nil }
            cached.checked = now
            entries[relative] = cached
            return cached
        }
        if let unchanged { return unchanged }
        // Symlinks must not lead outside the folder.
        guard let resolved = realpath(path, nil) else { return nil }
        let real = String(
            decoding: UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)), as: UTF8.self)
        free(resolved)
        guard real.hasPrefix(root + "/") else { return nil }
        guard let data = FileManager.default.contents(atPath: real), data.count <= maxFileSize else {
            return nil
        }
        let body = [UInt8](data)
        let contentType = Self.contentType(for: relative)
        let headers: HTTPHeaders = [
            "Content-Type": contentType,
            "Cache-Control": "public, max-age=300, must-revalidate",
            "X-Content-Type-Options": "nosniff",
        ]
        let entry = Entry(
            modified: info.st_mtim, size: body.count,
            representation: Representation(
                etag: EntityTag.of(body), headers: headers, body: body,
                compression: Self.isCompressible(contentType) ? .maximum : nil),
            checked: now)
        cache.entries.withLock { $0[relative] = entry }
        return entry
    }

    /// The MIME type for a file name, with charset for text.
    public static func contentType(for name: String) -> String {
        let ext = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch ext {
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "html", "htm": return "text/html; charset=utf-8"
        case "json", "map": return "application/json; charset=utf-8"
        case "txt": return "text/plain; charset=utf-8"
        case "svg": return "image/svg+xml; charset=utf-8"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "ico": return "image/x-icon"
        case "woff2": return "font/woff2"
        case "woff": return "font/woff"
        case "webmanifest": return "application/manifest+json; charset=utf-8"
        default: return "application/octet-stream"
        }
    }

    /// Text formats gain from compression; images and fonts are compressed already.
    static func isCompressible(_ contentType: String) -> Bool {
        contentType.hasPrefix("text/") || contentType.hasPrefix("application/json")
            || contentType.hasPrefix("image/svg+xml") || contentType.hasPrefix("application/manifest+json")
    }
}
