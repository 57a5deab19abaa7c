/// Receives a document's events from ``XMLStreamReader``, in document order. Text between two
/// tags arrives as one ``characters(_:)`` call (CDATA included, as plain text).
public protocol XMLEventHandler: AnyObject {
    /// An element opens.
    func startElement(_ name: XMLName, attributes: [XMLAttribute])
    /// An element closes. Elements still open when the input ends get no call.
    func endElement(_ name: XMLName)
    /// Text content: valid UTF-8 (undecodable bytes become U+FFFD), entities decoded once.
    func characters(_ text: String)
    /// The document type declaration (`<!DOCTYPE rss PUBLIC "…" "…">`), which is never loaded.
    func doctype(name: String, publicID: String?, systemID: String?)
}

extension XMLEventHandler {
    /// Ignores the declaration.
    public func doctype(name: String, publicID: String?, systemID: String?) {}
}
