/// Why a ``Server`` could not start.
public enum ServerError: Error, Equatable, CustomStringConvertible {
    /// The host name or address could not be resolved.
    case badAddress(String)
    /// `bind`/`listen` failed, e.g. the port is in use.
    case cannotListen(address: String, reason: String)
    /// An option value is out of range.
    case invalidOption(String)
    /// libmicrohttpd refused to start.
    case daemonFailed

    /// A one-line explanation for people.
    public var description: String {
        switch self {
        case .badAddress(let host): "cannot resolve host '\(host)'"
        case .cannotListen(let address, let reason): "cannot listen on \(address): \(reason)"
        case .invalidOption(let message): message
        case .daemonFailed: "libmicrohttpd failed to start"
        }
    }
}
