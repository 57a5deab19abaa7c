// libFuzzer entry point: bytes → Content-Type (the first byte) and body → FeedDocument.read
// (JSON Feed, RSS, Atom, sniffed or declared) and PlainText over the same bytes. The checks live
// in FeedFuzzOracle (shared with the regression tests).

import Glibc

/// The most CPU time one input may take. Measured on the thread's own CPU clock, not the wall
/// clock: on a shared machine libFuzzer's wall-clock `-timeout` also fires for a 6 ms input
/// that waited for a core (seen under load average 20); run.sh keeps it, at 10 s, for real hangs.
private let cpuBudgetSeconds = 1.0

private func threadCPUSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Called by libFuzzer once per input; traps on any broken invariant or an input over budget.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let start = threadCPUSeconds()
    do {
        try FeedFuzzOracle.exercise(Array(UnsafeBufferPointer(start: data, count: size)))
    } catch {
        fatalError("fuzz-feed invariant broken: \(error)")
    }
    let spent = threadCPUSeconds() - start
    if spent > cpuBudgetSeconds {
        fatalError("fuzz-feed: one input took \(spent) s of CPU (budget \(cpuBudgetSeconds) s)")
    }
    return 0
}
