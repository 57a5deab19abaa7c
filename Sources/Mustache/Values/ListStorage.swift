/// The elements of a list being encoded; see ``ObjectStorage`` for why it is a class.
final class ListStorage {
    var items: [EncodedValue] = []
}
