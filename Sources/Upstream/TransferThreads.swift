import CCurl
import Foundation

/// The threads blocking libcurl transfers run on: started when a transfer finds none idle, then
/// kept, each with one libcurl handle reused from transfer to transfer (`curl_easy_reset` keeps
/// its connection cache), so a reload of many feeds neither creates a thread per fetch nor opens
/// a new connection to a host it fetched from a moment ago.
///
/// At most as many threads as transfers ever ran at once (a river's `--source-concurrency`;
/// pulls and the schedule share one reload at a time). Never Swift's cooperative pool.
final class TransferThreads: @unchecked Sendable {
    /// A transfer: runs on a pool thread with that thread's handle (nil if libcurl could not
    /// make one: the transfer then fails at once).
    typealias Job = (UnsafeMutableRawPointer?) -> Void

    static let shared = TransferThreads()

    // `@unchecked Sendable`: every field below is read and written only under `condition`.
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var idle = 0

    /// Runs `job` on an idle thread, or on a new one when every thread is busy.
    func run(_ job: @escaping Job) {
        condition.lock()
        jobs.append(job)
        // More jobs waiting than threads waiting for jobs: one more thread. (Counting the queue,
        // not just `idle == 0`, keeps two quick submissions from sharing one woken thread.)
        let startThread = jobs.count > idle
        condition.signal()
        condition.unlock()
        if startThread {
            let thread = Thread { [self] in work() }
            thread.name = "pullrefresh-upstream"
            thread.start()
        }
    }

    private func work() {
        let handle = curl_easy_init()
        while true {
            condition.lock()
            while jobs.isEmpty {
                idle += 1
                condition.wait()
                idle -= 1
            }
            let job = jobs.removeFirst()
            condition.unlock()
            if let handle { curl_easy_reset(handle) }
            job(handle)
        }
    }
}
