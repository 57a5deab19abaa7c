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
    /// The TLS certificate or key is unusable: not PEM, or a key that does not match.
    case invalidTLS(String)
    /// This libmicrohttpd was built without TLS support.
    case tlsUnsupported

    /// A one-line explanation for people.
    public var description: String {
        switch self {
        case .badAddress(let host): "cannot resolve host '\(host)'"
        case .cannotListen(let address, let reason): "cannot listen on \(address): \(reason)"
        case .invalidOption(let message): message
        case .daemonFailed: "libmicrohttpd failed to start"
        case .invalidTLS(let reason): "TLS: \(reason)"
        case .tlsUnsupported: "TLS: this libmicrohttpd was built without TLS support"
        }
    }
}
