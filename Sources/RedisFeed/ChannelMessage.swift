/// What travels on the feed's pub/sub channel, one kind per first byte:
/// - `s<reload> <epoch> <snapshot JSON>`: version committed (or seeded, reload 0) in that epoch;
/// - `u<reload> <version>`: the reload finished and changed nothing;
/// - `f<reload> <base version> <message>`: the reload failed upstream.
enum ChannelMessage: Equatable {
    case committed(reload: Int, epoch: Int, snapshot: [UInt8])
    case unchanged(reload: Int, version: Int)
    case failed(reload: Int, base: Int, message: String)

    static func unchanged(reload: Int, version: Int) -> [UInt8] { Array("u\(reload) \(version)".utf8) }

    static func failed(reload: Int, base: Int, message: String) -> [UInt8] {
        Array("f\(reload) \(base) \(message)".utf8)
    }

    /// Parses a payload; nil for anything else (logged and ignored by the store).
    init?(_ payload: [UInt8]) {
        guard let kind = payload.first, let space = payload.firstIndex(of: 32),
            let reload = Int(String(decoding: payload[1..<space], as: UTF8.self))
        else { return nil }
        let rest = Array(payload[(space + 1)...])
        switch kind {
        case UInt8(ascii: "s"):
            guard let gap = rest.firstIndex(of: 32),
                let epoch = Int(String(decoding: rest[..<gap], as: UTF8.self)), epoch >= 0
            else { return nil }
            self = .committed(reload: reload, epoch: epoch, snapshot: Array(rest[(gap + 1)...]))
        case UInt8(ascii: "u"):
            guard let version = Int(String(decoding: rest, as: UTF8.self)) else { return nil }
            self = .unchanged(reload: reload, version: version)
        case UInt8(ascii: "f"):
            let text = String(decoding: rest, as: UTF8.self)
            let parts = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            guard let base = Int(parts[0]) else { return nil }
            self = .failed(reload: reload, base: base, message: parts.count > 1 ? String(parts[1]) : "")
        default:
            return nil
        }
    }
}
