// libFuzzer entry point: bytes → (box, encoding, original) → header check, shrink-on-load
// resize, encode → invariants. The checks live in ImageFuzzOracle (shared with the replay test).
// libvips itself is not instrumented, so coverage guides the fuzzer through our code only; the
// corpus of small real images (fuzz/corpus/image) gives the mutations structure to start from.

/// Called by libFuzzer once per input; traps on any broken invariant.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    do {
        try ImageFuzzOracle.exercise(Array(UnsafeBufferPointer(start: data, count: size)))
    } catch {
        fatalError("fuzz-image invariant broken: \(error)")
    }
    return 0
}
