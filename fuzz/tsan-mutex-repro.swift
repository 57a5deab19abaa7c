// Why fuzz/tsan.supp exists: a correct program whose only shared state is a Mutex gets
// "ThreadSanitizer: Swift access race" reports on Linux, because a contended Mutex is handed
// over inside the kernel (FUTEX_UNLOCK_PI / FUTEX_LOCK_PI) where TSan cannot see it.
//
//   swiftc -sanitize=thread -parse-as-library -Onone fuzz/tsan-mutex-repro.swift -o /tmp/repro
//   TSAN_OPTIONS=halt_on_error=1 /tmp/repro                                   # report
//   TSAN_OPTIONS=halt_on_error=1:suppressions=fuzz/tsan.supp /tmp/repro       # clean
//
// The same program with NSLock (pthread_mutex, which TSan intercepts) is clean without
// suppressions. Not part of any build.

import Dispatch
import Synchronization

final class Box: Sendable {
    let state = Mutex<[Int: Int]>([:])
}

@main struct Repro {
    static func main() {
        let box = Box()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for index in 0..<20_000 {
                box.state.withLock { $0[index % 64, default: 0] += worker }
            }
        }
        print(box.state.withLock { $0.count })
    }
}
