import CCurl
import Foundation

/// The one thread every libcurl transfer runs on: an event loop over a multi handle on libcurl's
/// socket interface (`curl_multi_socket_action`, the sockets watched with epoll: see
/// `pullrefresh_curl_loop` in the CCurl shim), woken through an eventfd when a transfer is
/// submitted, so a reload of 100 feeds wakes one thread for 100 transfers instead of 100
/// threads, and each wake-up costs by the sockets that are ready, not by all 100.
///
/// Easy handles are kept in a pool and reused (reset: options cleared); connections live in the
/// multi handle's cache, shared by every pooled handle, so a host fetched on the last reload is
/// not connected to again. Checked transfers keep apart from that cache (``Transfer/attach(to:ownHandle:)``).
///
/// How many transfers run at once is the callers' bound (a river submits at most its
/// `--source-concurrency`); the pool grows to that peak. Never Swift's cooperative pool.
final class TransferLoop: Sendable {
    static let shared = TransferLoop()

    /// The name of the loop's thread, as `/proc/self/task/*/comm` and `top -H` show it (Linux
    /// refuses a name over 15 bytes, which leaves the creating thread's).
    static let threadName = "upstream-loop"

    /// Idle connections the multi handle keeps: as many as a river may have sources
    /// (`SubscriptionList.maxSources` in FeedParsing, which this module does not see; RiverTests
    /// checks that the two agree). libcurl's default, four per handle currently added, would
    /// close most of a reload's connections as its last transfers finish.
    static let keptConnections = 500

    /// nil when libcurl (or the kernel, for epoll) could not make one: every transfer then fails
    /// at once. `nonisolated(unsafe)`: a pointer is not `Sendable`; only the loop's thread uses
    /// it after `init`.
    private nonisolated(unsafe) let multi: UnsafeMutableRawPointer?
    /// The epoll instance, the wake-up eventfd and libcurl's timer; the loop thread's after
    /// `init`, but for `wake`, which a submission writes to from any thread.
    private nonisolated(unsafe) let loop: UnsafeMutablePointer<pullrefresh_curl_loop>
    private let wake: Int32
    /// Submitted, not yet added to the multi handle; read and written only under `submittedLock`.
    /// An `NSLock` (a pthread mutex), not a `Mutex`: a ``Transfer`` made on the submitting thread
    /// is filled in on the loop's, and ThreadSanitizer (`make tsan`) sees that hand-over only
    /// through a lock it instruments; `Synchronization.Mutex` is not (fuzz/tsan.supp).
    private let submittedLock = NSLock()
    private nonisolated(unsafe) var submitted: [Transfer] = []

    private init() {
        _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        let loop = UnsafeMutablePointer<pullrefresh_curl_loop>.allocate(capacity: 1)
        loop.initialize(to: pullrefresh_curl_loop(epoll: -1, wake: -1, timer_due: -1))
        self.loop = loop
        multi = curl_multi_init().flatMap { pullrefresh_curl_loop_start($0, loop) == 0 ? $0 : nil }
        wake = loop.pointee.wake
        guard let multi else { return }
        pullrefresh_curl_multi_set_long(multi, CURLMOPT_MAXCONNECTS, Self.keptConnections)
        let thread = Thread { [self] in
            // Named by itself, through the kernel: on Linux, Foundation's `Thread.name` reaches
            // the kernel only if set on the thread once it knows itself, which races its start.
            try? Self.threadName.write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
            run()
        }
        thread.start()
    }

    /// Starts `transfer` on the loop; its completion is called there when it is done.
    func submit(_ transfer: Transfer) {
        guard multi != nil else {
            transfer.complete(.failure(UpstreamError("libcurl could not start", kind: .transport)))
            return
        }
        // Only the submission that finds the queue empty wakes the loop: a queue that already
        // holds one has a wake-up on its way (sent after that append), and the loop takes the
        // whole queue once woken. A reload submitting 100 transfers wakes it once or a few
        // times, not 100.
        let wasEmpty = submittedLock.withLock {
            defer { submitted.append(transfer) }
            return submitted.isEmpty
        }
        if wasEmpty { pullrefresh_curl_loop_wake(wake) }
    }

    /// The loop: never returns. Its state lives here, on its own thread.
    private func run() {
        guard let multi else { return }
        var running: [UnsafeMutableRawPointer: Transfer] = [:]
        var idleHandles: [UnsafeMutableRawPointer] = []
        var queued: Int32 = 0
        while true {
            let newTransfers = submittedLock.withLock {
                var taken: [Transfer] = []
                swap(&taken, &submitted)
                return taken
            }
            for transfer in newTransfers {
                let ownHandle = transfer.options.needsOwnHandle
                let reused = ownHandle ? nil : idleHandles.popLast()
                guard let handle = reused ?? curl_easy_init() else {
                    transfer.complete(.failure(UpstreamError("libcurl could not start", kind: .transport)))
                    continue
                }
                transfer.attach(to: handle, ownHandle: ownHandle)
                guard curl_multi_add_handle(multi, handle) == CURLM_OK else {
                    transfer.complete(.failure(UpstreamError("libcurl could not start", kind: .transport)))
                    Self.recycle(handle, of: transfer, into: &idleHandles)
                    continue
                }
                running[handle] = transfer
            }
            // Adding a handle set libcurl's timer to now, so this starts the new transfers at
            // once; otherwise it waits for a socket, a submission or libcurl's timer (set while
            // anything runs: its timeouts), or a quiet minute.
            pullrefresh_curl_loop_run_once(multi, loop, 60_000)
            while let message = curl_multi_info_read(multi, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                    let transfer = running.removeValue(forKey: handle)
                else { continue }
                // Read before the handle is removed: `message` is only valid until then.
                let result = transfer.outcome(message.pointee.data.result)
                curl_multi_remove_handle(multi, handle)
                Self.recycle(handle, of: transfer, into: &idleHandles)
                transfer.complete(result)
            }
        }
    }

    /// Puts a kept handle back in the pool, reset; cleans up a checked transfer's own handle.
    private static func recycle(
        _ handle: UnsafeMutableRawPointer, of transfer: Transfer,
        into idleHandles: inout [UnsafeMutableRawPointer]
    ) {
        if transfer.options.needsOwnHandle {
            curl_easy_cleanup(handle)
            transfer.releaseOwnDNSCache()
        } else {
            curl_easy_reset(handle)
            idleHandles.append(handle)
        }
    }
}
