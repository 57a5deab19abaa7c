/// The fields of an object being encoded, shared between an encoder and its containers.
///
/// Containers are structs that the `Encodable` implementation may copy, so
/// they write through this reference rather than holding the fields themselves.
final class ObjectStorage {
    var fields: [String: EncodedValue] = [:]
}
