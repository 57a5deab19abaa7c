import Dispatch
import Foundation

/// Waits for SIGTERM or SIGINT. Lives outside main.swift so its handlers are not inferred to be
/// @MainActor (they run on a Dispatch queue).
enum SignalWaiter {
    /// Returns the name of the first termination signal received.
    static func wait() async -> String {
        signal(SIGPIPE, SIG_IGN)
        return await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            let queue = DispatchQueue(label: "pullrefresh.signals")
            let fired = SignalOnce(continuation)
            for (number, name) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { fired.fire(name) }
                source.resume()
                fired.keep(source)
            }
        }
    }
}

/// Resumes the continuation once, however many signals arrive; keeps the sources alive.
private final class SignalOnce: @unchecked Sendable {
    private var continuation: CheckedContinuation<String, Never>?
    private var sources: [any DispatchSourceSignal] = []
    private let lock = NSLock()

    init(_ continuation: CheckedContinuation<String, Never>) {
        self.continuation = continuation
    }

    func keep(_ source: any DispatchSourceSignal) {
        lock.withLock { sources.append(source) }
    }

    func fire(_ name: String) {
        let pending = lock.withLock { () -> CheckedContinuation<String, Never>? in
            defer { continuation = nil }
            return continuation
        }
        pending?.resume(returning: name)
    }
}
