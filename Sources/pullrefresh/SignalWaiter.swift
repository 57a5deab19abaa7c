import Dispatch
import Foundation

/// Catches SIGTERM and SIGINT from the moment it is created, so a signal that arrives right
/// after the startup line is never lost to the default action. Lives outside main.swift so its
/// handlers are not inferred to be @MainActor (they run on a Dispatch queue).
final class SignalWaiter: @unchecked Sendable {
    private let lock = NSLock()
    private var received: String?
    private var continuation: CheckedContinuation<String, Never>?
    private var sources: [any DispatchSourceSignal] = []

    init() {
        signal(SIGPIPE, SIG_IGN)
        let queue = DispatchQueue(label: "pullrefresh.signals")
        for (number, name) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in self?.fire(name) }
            source.resume()
            sources.append(source)
        }
    }

    /// Returns the name of the first termination signal, at once if one already arrived.
    func wait() async -> String {
        await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            let ready = lock.withLock { () -> String? in
                if let received { return received }
                self.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private func fire(_ name: String) {
        let waiting = lock.withLock { () -> CheckedContinuation<String, Never>? in
            guard received == nil else { return nil }
            received = name
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(returning: name)
    }
}
