// libFuzzer entry point: bytes → raw HTTP request → Request → the real FeedApp router →
// response (deferred handlers run to completion) → invariants. The checks live in FuzzOracle
// (shared with the regression tests).

import Dispatch
import Foundation
import HTTPServer
import Synchronization

/// The app, built once on first use. PULLREFRESH_ROOT overrides where Templates/ is found.
private let rig: FuzzOracle.RequestRig = {
    let repository =
        ProcessInfo.processInfo.environment["PULLREFRESH_ROOT"].map { URL(fileURLWithPath: $0) }
        ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    do {
        return try FuzzOracle.RequestRig(repositoryRoot: repository)
    } catch {
        fatalError("cannot build the app from \(repository.path): \(error)")
    }
}()

/// Runs deferred work on Swift's cooperative pool and blocks the fuzzer thread until it ends.
private func wait(for work: @escaping @Sendable () async -> Response) -> Response {
    let result = Mutex<Response?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let response = await work()
        result.withLock { $0 = response }
        done.signal()
    }
    done.wait()
    return result.withLock { $0! }
}

/// Called by libFuzzer once per input; traps on any broken invariant.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let prepared = rig.prepare(Array(UnsafeBufferPointer(start: data, count: size))) else { return 0 }
    let response: Response
    switch prepared.outcome {
    case .response(let ready): response = ready
    case .deferred(let work): response = wait(for: work)
    }
    do {
        try rig.check(response, for: prepared)
    } catch {
        fatalError("fuzz-request invariant broken: \(error)")
    }
    return 0
}

/// Called by libFuzzer before the first input: builds the app outside the per-input leak check.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> Int32 {
    _ = rig
    return 0
}
