import Foundation
import Glibc

/// The write end of the signal pipe, read by the signal handler: set once, before the handler
/// is installed, and never changed (a constant-initialized global, so reading it in a handler
/// runs no lazy initialization).
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// The handler of SIGTERM and SIGINT: one byte, the signal's number, into the pipe. `write` is
/// async-signal-safe; nothing else happens here.
private func forwardSignal(_ number: Int32) {
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(signalPipeWriteEnd, &byte, 1)
}

/// Catches SIGTERM and SIGINT from the moment it is created until the process exits, so a
/// signal is never lost and never kills the process (exit status 143) however it arrives.
///
/// A process-wide handler (`sigaction`) runs on whichever thread the kernel picks and only
/// writes to a pipe; a thread of its own reads the pipe. Unlike an ignored disposition watched
/// by a Dispatch source, this does not depend on which threads block the signal, and it stays
/// installed for the process's whole life: a second signal during the drain is logged, never
/// fatal. Lives outside main.swift so nothing in it is inferred to be @MainActor.
final class SignalWaiter: @unchecked Sendable {
    private let lock = NSLock()
    private var received: String?
    private var continuation: CheckedContinuation<String, Never>?
    private var onRepeat: (@Sendable (String) -> Void)?

    init() {
        signal(SIGPIPE, SIG_IGN)
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { fatalError("pullrefresh: cannot create the signal pipe") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        signalPipeWriteEnd = ends[1]
        var action = sigaction()
        action.__sigaction_handler.sa_handler = forwardSignal
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        for number in [SIGTERM, SIGINT] { sigaction(number, &action, nil) }
        let readEnd = ends[0]
        let thread = Thread { [self] in
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count == 1 { self.fire(byte == UInt8(SIGINT) ? "SIGINT" : "SIGTERM") }
                if count < 0, errno != EINTR { return }
            }
        }
        thread.name = "signals"
        thread.start()
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

    /// Runs `handler` for every termination signal after the first (the drain goes on).
    func whenRepeated(_ handler: @escaping @Sendable (String) -> Void) {
        lock.withLock { onRepeat = handler }
    }

    private func fire(_ name: String) {
        let (waiting, repeated) = lock.withLock {
            () -> (CheckedContinuation<String, Never>?, (@Sendable (String) -> Void)?) in
            guard received == nil else { return (nil, onRepeat) }
            received = name
            defer { continuation = nil }
            return (continuation, nil)
        }
        waiting?.resume(returning: name)
        repeated?(name)
    }
}
