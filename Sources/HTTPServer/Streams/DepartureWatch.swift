import Foundation
import Glibc
import Synchronization

/// Notices clients that close their event stream's connection while it is suspended.
///
/// A suspended connection is out of libmicrohttpd's poll set: it would learn that the client
/// left only when the next heartbeat's write failed (up to two heartbeats, 30 s), holding a
/// descriptor and a `--max-streams` slot meanwhile. Phones drop streams all the time. So one
/// thread polls the suspended streams' sockets for `POLLRDHUP` (the client's FIN), `POLLHUP`
/// and `POLLERR` (an RST) — polling reads nothing, so libmicrohttpd's rule that it alone uses a
/// suspended connection's socket holds — and ends each departed stream the way a broken write
/// does: marked broken, resumed, closed by libmicrohttpd with an error.
///
/// A peer gone silently (no FIN: a phone off the network) shows nothing to poll; it is still
/// found by the heartbeat's failed write.
final class DepartureWatch: Sendable {
    /// How long one poll waits: a departure is acted on within about this, plus a stream's wait
    /// to be first watched (one more round).
    static let round: Duration = .milliseconds(200)

    /// `POLLRDHUP`: the peer shut down its side (its FIN). Linux's value; Swift's Glibc module
    /// imports <poll.h> without `_GNU_SOURCE`, which is what defines the name.
    static let peerClosed: Int16 = 0x2000

    private let streams: @Sendable () -> [ResponseStream]
    private let stopped = Atomic<Bool>(false)

    /// Starts the watch over what `streams` lists each round.
    init(streams: @escaping @Sendable () -> [ResponseStream]) {
        self.streams = streams
        let thread = Thread { [self] in self.run() }
        thread.name = "stream-departures"
        thread.start()
    }

    /// Ends the watch: its thread acts on nothing more and leaves within a round. Never waits
    /// (it is called from async code and from a deinit, which must not hold a thread of Swift's
    /// cooperative pool for a round). Safe to call twice.
    func stop() {
        stopped.store(true, ordering: .releasing)
    }

    private func run() {
        let (seconds, attoseconds) = Self.round.components
        let milliseconds = Int32(seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        while !stopped.load(ordering: .acquiring) {
            let watched = streams().compactMap { stream in stream.watchedSocket.map { (stream, $0) } }
            guard !watched.isEmpty else {
                usleep(UInt32(milliseconds) * 1000)
                continue
            }
            var descriptors = watched.map { pollfd(fd: $0.1, events: Self.peerClosed, revents: 0) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
            guard ready > 0 else { continue }
            let gone = Self.peerClosed | Int16(POLLHUP | POLLERR | POLLNVAL)
            for (index, descriptor) in descriptors.enumerated() where descriptor.revents & gone != 0 {
                // Once stopped the server may be stopping libmicrohttpd: resume nothing more.
                guard !stopped.load(ordering: .acquiring) else { return }
                watched[index].0.clientDeparted(from: descriptor.fd)
            }
        }
    }
}
