/// A prepared response's body, copied once; every libmicrohttpd response made over it keeps it
/// alive (through the free callback) until libmicrohttpd is done with that response.
final class ResponseBytes: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    let count: Int

    init(_ body: [UInt8]) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, body.count), alignment: 1)
        body.withUnsafeBytes { buffer.copyMemory(from: $0) }
        base = buffer.baseAddress!
        count = body.count
    }

    deinit {
        base.deallocate()
    }
}

/// libmicrohttpd's free callback for responses over ``ResponseBytes``: drops their reference.
func mhdReleaseBytes(_ cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    Unmanaged<ResponseBytes>.fromOpaque(cls).release()
}
