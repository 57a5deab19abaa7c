/// A value under construction by ``ValueEncoder``.
///
/// Containers may still be written to after they are handed out, so objects
/// and lists stay references until encoding finishes and ``resolved`` freezes them.
enum EncodedValue {
    case value(MustacheValue)
    case object(ObjectStorage)
    case list(ListStorage)
    /// A `superEncoder()` whose value is only known once the caller has used it.
    case deferred(ValueEncoder)

    var resolved: MustacheValue {
        switch self {
        case .value(let value):
            value
        case .object(let object):
            .object(object.fields.mapValues(\.resolved))
        case .list(let list):
            .list(list.items.map(\.resolved))
        case .deferred(let encoder):
            encoder.storage?.resolved ?? .null
        }
    }
}
