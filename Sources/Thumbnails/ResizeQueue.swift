import Dispatch
import Foundation
import Synchronization

/// Runs resizes (CPU-bound, blocking libvips calls of a few to tens of milliseconds) on a few
/// threads of its own, one per core, fed from one queue; one queue per process (``shared``),
/// as the cores are.
///
/// Not on Dispatch queues: on Linux, Swift's cooperative pool runs on Dispatch's global
/// threads, so a resize there would hold a thread that the server's async handlers (refreshes,
/// other thumbnails) need; with 2 cores the pool has 2. Never more resizes at once than lanes.
final class ResizeQueue: Sendable {
    /// The process's queue: a lane per core.
    static let shared = ResizeQueue(lanes: ProcessInfo.processInfo.activeProcessorCount)

    private final class Jobs: Sendable {
        let waiting = Mutex<[@Sendable () -> Void]>([])
        let ready = DispatchSemaphore(value: 0)

        /// The lanes' loop: one job per signal, for ever.
        func serve() {
            while true {
                ready.wait()
                if let job = waiting.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { job() }
            }
        }
    }

    private let jobs = Jobs()

    private init(lanes: Int) {
        for lane in 0..<max(lanes, 1) {
            let thread = Thread { [jobs] in jobs.serve() }
            thread.name = "pullrefresh-resize-\(lane)"
            thread.start()
        }
    }

    /// `work`'s result, computed on one of the queue's threads.
    func run<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            jobs.waiting.withLock { $0.append { continuation.resume(returning: work()) } }
            jobs.ready.signal()
        }
    }
}
