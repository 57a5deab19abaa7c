import CBrotli

/// Brotli through libbrotlienc/libbrotlidec: one-shot compression into a buffer sized by
/// `BrotliEncoderMaxCompressedSize`, and bounded streaming decompression.
enum Brotli {
    static func compress(_ input: [UInt8], quality: Int32) -> [UInt8]? {
        let bound = BrotliEncoderMaxCompressedSize(input.count)
        guard bound > 0 else { return nil }
        var output = [UInt8](repeating: 0, count: bound)
        var size = bound
        let ok = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                BrotliEncoderCompress(
                    quality, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_TEXT, source.count, source.baseAddress, &size,
                    target.baseAddress)
            }
        }
        guard ok == BROTLI_TRUE else { return nil }
        output.removeLast(bound - size)
        return output
    }

    static func decompress(_ input: [UInt8], limit: Int) -> [UInt8]? {
        guard let decoder = BrotliDecoderCreateInstance(nil, nil, nil) else { return nil }
        defer { BrotliDecoderDestroyInstance(decoder) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        return input.withUnsafeBufferPointer { source -> [UInt8]? in
            var availableIn = source.count
            var nextIn = source.baseAddress
            while true {
                let (result, produced) = chunk.withUnsafeMutableBufferPointer { target in
                    var availableOut = target.count
                    var nextOut = target.baseAddress
                    let result = BrotliDecoderDecompressStream(
                        decoder, &availableIn, &nextIn, &availableOut, &nextOut, nil)
                    return (result, target.count - availableOut)
                }
                output.append(contentsOf: chunk[..<produced])
                if output.count > limit { return nil }
                switch result {
                case BROTLI_DECODER_RESULT_SUCCESS: return availableIn == 0 ? output : nil
                case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT: continue
                default: return nil
                }
            }
        }
    }
}
