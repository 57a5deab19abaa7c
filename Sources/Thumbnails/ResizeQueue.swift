import Dispatch
import Synchronization

/// Runs resizes (CPU-bound, blocking libvips calls of a few to tens of milliseconds) on one
/// serial queue per core, taken in turn: never on Swift's cooperative pool, whose threads the
/// server's other tasks need, and never more resizes at once than cores.
final class ResizeQueue: Sendable {
    private let queues: [DispatchQueue]
    private let next = Atomic<UInt>(0)

    init(lanes: Int) {
        queues = (0..<max(lanes, 1)).map {
            DispatchQueue(label: "pullrefresh-resize-\($0)", qos: .userInitiated)
        }
    }

    /// `work`'s result, computed on one of the queues.
    func run<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        let lane = Int(next.wrappingAdd(1, ordering: .relaxed).oldValue % UInt(queues.count))
        return await withCheckedContinuation { continuation in
            queues[lane].async { continuation.resume(returning: work()) }
        }
    }
}
