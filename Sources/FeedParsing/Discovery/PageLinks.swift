/// What ``PageLinkScanner`` read from a page: its `<base href>` and the `<link>` elements that
/// may name a feed, within the scan's bounds.
struct PageLinks: Sendable, Equatable {
    /// The first `<base href>`, as written.
    var base: String?
    /// `<link>` elements with `rel` and `href`, in page order, at most
    /// ``PageLinkScanner/maxLinks``.
    var links: [PageLink] = []
    /// Why the scan stopped before the end of the page (a bound), if it did.
    var stopped: String?
}
