import Foundation

/// The listening socket, opened here rather than by libmicrohttpd so that "port in use" is a
/// clear error, port 0 reports the real port, and shutdown can close it after quiescing.
struct ListenSocket {
    let descriptor: Int32
    let port: Int
    let displayAddress: String

    static func open(host: String, port: Int, backlog: Int) throws(ServerError) -> ListenSocket {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw ServerError.badAddress(host)
        }
        defer { freeaddrinfo(list) }
        let family = first.pointee.ai_family
        let display = family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)"
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            throw ServerError.cannotListen(address: display, reason: ListenSocket.lastError())
        }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0,
            listen(fd, Int32(backlog)) == 0
        else {
            let reason = ListenSocket.lastError()
            close(fd)
            throw ServerError.cannotListen(address: display, reason: reason)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let boundPort = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address -> Int in
                guard getsockname(fd, address, &length) == 0 else { return port }
                return SocketAddress.port(of: address) ?? port
            }
        }
        let shownHost = family == AF_INET6 ? "[\(host)]" : host
        return ListenSocket(descriptor: fd, port: boundPort, displayAddress: "\(shownHost):\(boundPort)")
    }

    private static func lastError() -> String {
        String(cString: strerror(errno))
    }
}

/// Formatting of C socket addresses; kept here so no other module touches `sockaddr`.
enum SocketAddress {
    static func port(of address: UnsafePointer<sockaddr>) -> Int? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                Int(UInt16(bigEndian: $0.pointee.sin_port))
            }
        case AF_INET6:
            address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                Int(UInt16(bigEndian: $0.pointee.sin6_port))
            }
        default: nil
        }
    }
}
