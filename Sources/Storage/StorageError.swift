/// Why the store of record cannot be used: one line that names the file, for the person starting
/// the server (`pullrefresh` prints it and exits 2).
public struct StorageError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The explanation, e.g. `database /var/lib/x.sqlite is in use by process 4711`.
    public var message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
