/// Content that changes by versions, such as a feed store: what decides whether a stored
/// response (see ``Response/reusable(while:isAt:)``) may still be sent.
public protocol VersionedContent: Sendable {
    /// The version the content is at now; read on every stored-response hit, so it must be
    /// cheap (an atomic load) and never wait.
    var currentVersion: Int { get }
}
