import CZlib

/// gzip through zlib: one-shot compression into a buffer sized by `deflateBound`, and bounded
/// decompression.
enum Gzip {
    static func compress(_ input: [UInt8], level: Int32) -> [UInt8]? {
        var stream = z_stream()
        guard prh_deflate_init_gzip(&stream, level) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(input.count)))
        var output = [UInt8](repeating: 0, count: bound)
        let status = input.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { target -> Int32 in
                stream.next_in = UnsafeMutablePointer(
                    mutating: source.baseAddress?.assumingMemoryBound(to: Bytef.self))
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(target.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        output.removeLast(bound - Int(stream.total_out))
        return output
    }

    static func decompress(_ input: [UInt8], limit: Int) -> [UInt8]? {
        var stream = z_stream()
        guard prh_inflate_init_gzip(&stream) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        return input.withUnsafeBytes { source -> [UInt8]? in
            stream.next_in = UnsafeMutablePointer(
                mutating: source.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(source.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBytes { target -> (Int32, Int) in
                    stream.next_out = target.baseAddress?.assumingMemoryBound(to: Bytef.self)
                    stream.avail_out = uInt(target.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    return (status, target.count - Int(stream.avail_out))
                }
                output.append(contentsOf: chunk[..<produced])
                if output.count > limit { return nil }
                switch status {
                case Z_STREAM_END: return stream.avail_in == 0 ? output : nil
                case Z_OK where produced > 0 || stream.avail_in > 0: continue
                default: return nil
                }
            }
        }
    }
}
