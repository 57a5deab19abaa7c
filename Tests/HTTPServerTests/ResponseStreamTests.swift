import Synchronization
import Testing

@testable import HTTPServer

/// ``ResponseStream/write(_:whenTaken:)`` without a connection: when nothing was woken, the
/// handler runs at once (a publisher must never wait on a stream it did not wake).
@Suite("A stream's taken handler")
struct ResponseStreamTests {
    @Test func aWriteThatWakesNothingRunsItsHandlerAtOnce() {
        let stream = ResponseStream()
        let runs = Atomic<Int>(0)
        #expect(stream.write(Array("a".utf8)) { runs.add(1, ordering: .relaxed) })
        #expect(runs.load(ordering: .relaxed) == 1)
        #expect(stream.pendingByteCount == 1)
    }

    @Test func aRefusedWriteRunsItsHandlerAtOnce() {
        let stream = ResponseStream()
        stream.finish()
        let runs = Atomic<Int>(0)
        #expect(!stream.write(Array("a".utf8)) { runs.add(1, ordering: .relaxed) })
        #expect(runs.load(ordering: .relaxed) == 1)
        #expect(stream.pendingByteCount == 0)
    }
}
