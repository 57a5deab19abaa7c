import FeedWeb
import Foundation
import HTTPServer
import Logging
import Metrics
import TestSupport
import Testing

@testable import Feed

/// Clients that close their event stream (FIN or RST) while it waits free their slot and
/// descriptor within a second, seen by the server's departure watch rather than a heartbeat.
@Suite("Departed streams")
struct StreamDepartureTests {
    /// Opens `count` streams and reads each one's `retry:` hint.
    static func openStreams(_ count: Int, port: Int) async throws -> [StreamingReader] {
        try await RawConnection.offPool {
            try (0..<count).map { _ in
                let connection = try RawConnection(port: port)
                try connection.send(EventStreamTests.request("/api/events") + "\r\n")
                let reader = StreamingReader(connection)
                guard try reader.readHead().status == 200 else { throw RawError.io("stream refused") }
                try reader.read(until: "retry:")
                return reader
            }
        }
    }

    /// The value of one series in the exposition text.
    static func value(_ exposition: String, _ series: String) -> Double? {
        exposition.split(separator: "\n").first { $0.hasPrefix(series + " ") }
            .flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    @Test func closedStreamsFreeTheirSlotsWithinASecond() async throws {
        // Heartbeats a minute apart: only the departure watch can notice within the test.
        let app = try EventStreamTests.app(heartbeat: .seconds(60))
        let registry = MetricsRegistry()
        var options = ServerOptions()
        options.port = 0
        options.threads = 2
        options.maxStreams = 200
        let server = try Server(
            router: app.router(), options: options, logger: Logger(quiet: true), metrics: registry,
            metricPrefix: "pullrefresh")
        var readers = try await Self.openStreams(200, port: server.port)
        #expect(server.openStreams == 200)
        let refused = try await RawConnection.exchange(
            port: server.port, [EventStreamTests.request("/api/events") + "\r\n"])
        #expect(refused[0].status == 503)

        // 100 clients close (FIN), 50 reset (RST: SO_LINGER 0); 50 stay.
        for reader in readers[100..<150] {
            var reset = linger(l_onoff: 1, l_linger: 0)
            setsockopt(
                reader.connection.descriptor, SOL_SOCKET, SO_LINGER, &reset,
                socklen_t(MemoryLayout<linger>.size))
        }
        let closedAt = ContinuousClock.now
        readers.removeFirst(150)  // the connections close as their readers go
        // Timed on a thread of the test's own: the cooperative pool, busy with the other suites,
        // would add its own delays to what the server took.
        let took = try await RawConnection.offPool {
            let deadline = closedAt + .seconds(10)
            while server.openStreams != 50 || server.openConnections != 50, ContinuousClock.now < deadline {
                usleep(2_000)
            }
            return ContinuousClock.now - closedAt
        }
        #expect(server.openStreams == 50)
        #expect(app.events.openStreams == 50)
        #expect(server.openConnections == 50)
        #expect(took < .seconds(1), "departures took \(took)")

        // The slots are reusable at once, up to --max-streams again.
        readers += try await Self.openStreams(150, port: server.port)
        #expect(server.openStreams == 200)
        let text = registry.exposition()
        #expect(Self.value(text, "pullrefresh_event_streams_closed_total{reason=\"client_closed\"}") == 150)
        #expect(Self.value(text, "pullrefresh_event_streams_closed_total{reason=\"limit\"}") == 1)
        #expect(Self.value(text, "pullrefresh_event_streams_closed_total{reason=\"heartbeat_failed\"}") == 0)

        // The ones that stayed still get every event.
        _ = try await EventStreamTests.refresh(server.port)
        for reader in readers {
            _ = try await EventStreamTests.read(reader, until: "event: version")
        }
        await server.shutdown()
        #expect(
            Self.value(registry.exposition(), "pullrefresh_event_streams_closed_total{reason=\"shutdown\"}")
                == 200)
    }
}
