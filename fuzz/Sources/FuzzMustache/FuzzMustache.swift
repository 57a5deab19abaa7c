// libFuzzer entry point: bytes → template (and JSON context) → parse → render, with the
// template as its own partial. The checks live in FuzzOracle (shared with the regression tests).

/// Called by libFuzzer once per input; traps on any broken invariant.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    do {
        try FuzzOracle.exerciseMustache(Array(UnsafeBufferPointer(start: data, count: size)))
    } catch {
        fatalError("fuzz-mustache invariant broken: \(error)")
    }
    return 0
}
