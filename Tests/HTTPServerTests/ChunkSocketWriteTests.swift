import Glibc
import Testing

@testable import HTTPServer

/// ``ChunkSocketWrite`` on a local socket pair: a whole chunk or nothing, and a gone peer is
/// broken.
@Suite("Chunks written straight to a socket")
struct ChunkSocketWriteTests {
    /// A connected pair of stream sockets; both ends non-blocking.
    static func socketPair() throws -> (Int32, Int32) {
        var ends: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        return (ends[0], ends[1])
    }

    static func readAll(_ socket: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { return bytes }
            bytes += buffer[..<count]
        }
    }

    @Test func aChunkIsItsHexSizeTheBytesAndCRLFs() throws {
        let (writer, reader) = try Self.socketPair()
        defer {
            close(writer)
            close(reader)
        }
        #expect(ChunkSocketWrite.send(Array(": ping\n\n".utf8), to: writer) == .sent)
        #expect(ChunkSocketWrite.send([UInt8](repeating: 65, count: 26), to: writer) == .sent)
        let expected = "8\r\n: ping\n\n\r\n" + "1a\r\n" + String(repeating: "A", count: 26) + "\r\n"
        #expect(String(decoding: Self.readAll(reader), as: UTF8.self) == expected)
    }

    @Test func aFullSocketTakesNothing() throws {
        let (writer, reader) = try Self.socketPair()
        defer {
            close(writer)
            close(reader)
        }
        var byte: UInt8 = 0
        while send(writer, &byte, 1, Int32(MSG_DONTWAIT)) == 1 {}
        #expect(ChunkSocketWrite.send(Array("data: 1\n\n".utf8), to: writer) == .nothingSent)
    }

    @Test func aGonePeerIsBroken() throws {
        let (writer, reader) = try Self.socketPair()
        defer { close(writer) }
        close(reader)
        #expect(ChunkSocketWrite.send(Array("data: 1\n\n".utf8), to: writer) == .broken)
    }
}
