import Foundation
import Synchronization

/// A task executor with one thread of its own that runs at a lower CPU priority than the
/// server's threads.
///
/// Why: a fan-out writes one event to thousands of streams, tens of milliseconds of CPU on a
/// machine whose cores also serve requests. Run at normal priority it competes with the
/// server's threads, and the requests that arrive meanwhile wait (bench/EVENTS.md); at a lower
/// priority the kernel hands the core to a request's thread as soon as it has work, and the
/// fan-out continues in the gaps. Nothing here is urgent to the microsecond: delivery is
/// measured in milliseconds.
final class BackgroundExecutor: TaskExecutor, @unchecked Sendable {
    /// Jobs waiting to run, oldest first; the semaphore counts them.
    private let jobs = Mutex<[UnownedJob]>([])
    private let available = DispatchSemaphore(value: 0)

    /// Starts the thread, named `name`, at `niceness` (0 normal, 19 lowest). It runs for the
    /// life of the process, as the executor is meant to be shared (see ``StreamFanOut/executor``).
    init(name: String, niceness: Int32 = 10) {
        let thread = Thread { [self] in
            // On Linux the nice value belongs to the calling thread alone (who = 0).
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
            while true {
                available.wait()
                guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let waiting = UnownedJob(job)
        jobs.withLock { $0.append(waiting) }
        available.signal()
    }
}
