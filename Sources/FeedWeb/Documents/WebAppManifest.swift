import Compression
import Feed
import HTTPServer

/// The web app manifest (`GET /manifest.webmanifest`), which makes the page installable: a
/// document per UI language, named from that language's strings (`manifestName`,
/// `manifestDescription`), each built and compressed once at startup.
///
/// The page links `/manifest.webmanifest?lang=<code>` when the reader chose a language, and the
/// installed app then starts in it (`start_url` `/?lang=<code>`); else the bare path, answered
/// in the `Accept-Language` language like the page, starting at `/`. `id` is `/` either way, so
/// every language is the same app. Its `share_target` (`GET /share?title=&text=&url=`) makes
/// the installed app a place to share a site to: the Feeds page's add form, prefilled.
struct WebAppManifest: Sendable {
    /// `theme_color` and `background_color`: app.css's light `--bg`, the colour behind the
    /// header, so the splash screen and the title bar match the page. The page's `theme-color`
    /// meta tags give the dark one too (a manifest has no media queries).
    static let backgroundColor = "#f2f2f7"

    /// One icon entry: its file under `/static/icons/`, its size in px and its purpose.
    struct Icon: Sendable {
        var file: String
        var size: Int
        var purpose: String
    }

    /// The manifest's icons, all made from `Client/icons/icon.svg` by `make icons`.
    static let icons = [
        Icon(file: "icon-192.png", size: 192, purpose: "any"),
        Icon(file: "icon-512.png", size: 512, purpose: "any"),
        Icon(file: "icon-maskable-512.png", size: 512, purpose: "maskable"),
    ]

    private struct Key: Hashable {
        var language: String
        var explicit: Bool
    }

    private let documents: [Key: Representation]

    /// Builds every language's documents from `localizer`'s strings.
    init(localizer: Localizer) {
        var documents: [Key: Representation] = [:]
        for language in localizer.languages {
            for explicit in [false, true] {
                documents[Key(language: language, explicit: explicit)] = Self.representation(
                    localizer, language: language, explicit: explicit)
            }
        }
        self.documents = documents
    }

    /// The answer in `language` (`explicit`: chosen by `?lang=`, else negotiated).
    func response(to request: Request, language: String, explicit: Bool) -> Response? {
        documents[Key(language: language, explicit: explicit)]?.response(to: request)
    }

    /// The JSON document, keys in a fixed order (byte-stable, so its ETag is too).
    static func document(_ localizer: Localizer, language: String, explicit: Bool) -> [UInt8] {
        let strings = localizer.strings(for: language)
        var writer = JSONWriter(capacity: 1024)
        writer.raw("{\"id\":\"/\",\"name\":")
        writer.string(strings["manifestName"] ?? strings["appName"] ?? "PullRefresh")
        writer.raw(",\"short_name\":")
        writer.string(strings["appName"] ?? "PullRefresh")
        writer.raw(",\"description\":")
        writer.string(strings["manifestDescription"] ?? "")
        writer.raw(",\"lang\":")
        writer.string(language)
        writer.raw(",\"dir\":")
        writer.string(localizer.direction(for: language))
        writer.raw(",\"start_url\":")
        writer.string(explicit ? "/?lang=\(language)" : "/")
        writer.raw(",\"scope\":\"/\",\"display\":\"standalone\",\"theme_color\":")
        writer.string(backgroundColor)
        writer.raw(",\"background_color\":")
        writer.string(backgroundColor)
        writer.raw(",\"icons\":[")
        for (index, icon) in icons.enumerated() {
            if index > 0 { writer.raw(",") }
            writer.raw("{\"src\":")
            writer.string("/static/icons/\(icon.file)")
            writer.raw(",\"sizes\":")
            writer.string("\(icon.size)x\(icon.size)")
            writer.raw(",\"type\":\"image/png\",\"purpose\":")
            writer.string(icon.purpose)
            writer.raw("}")
        }
        // Sharing a page to the installed app opens the Feeds page's add form with its address.
        // Chromium wants the encoding named even for GET (its parser warns otherwise).
        writer.raw("],\"share_target\":{\"action\":\"/share\",\"method\":\"GET\",")
        writer.raw("\"enctype\":\"application/x-www-form-urlencoded\",")
        writer.raw("\"params\":{\"title\":\"title\",\"text\":\"text\",\"url\":\"url\"}}}")
        return writer.bytes
    }

    private static func representation(_ localizer: Localizer, language: String, explicit: Bool)
        -> Representation
    {
        let body = document(localizer, language: language, explicit: explicit)
        var headers: HTTPHeaders = [
            "Content-Type": "application/manifest+json",
            "Cache-Control": "public, max-age=300, must-revalidate",
            "X-Content-Type-Options": "nosniff",
        ]
        // The bare path is in the reader's Accept-Language language, like the page.
        if !explicit { headers.set("Vary", "Accept-Language") }
        return Representation(
            etag: EntityTag.of(body), headers: headers, body: body, compression: .maximum)
    }
}
