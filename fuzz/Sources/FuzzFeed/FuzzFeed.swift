// libFuzzer entry point: bytes → Content-Type (the first byte) and body → FeedDocument.read
// (JSON Feed, RSS, Atom, sniffed or declared) and PlainText over the same bytes. The checks live
// in FeedFuzzOracle (shared with the regression tests).

/// Called by libFuzzer once per input; traps on any broken invariant.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    do {
        try FeedFuzzOracle.exercise(Array(UnsafeBufferPointer(start: data, count: size)))
    } catch {
        fatalError("fuzz-feed invariant broken: \(error)")
    }
    return 0
}
