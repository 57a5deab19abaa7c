import Feed
import Foundation
import RedisClient
import Testing

@testable import RedisFeed

/// How the feed travels through Redis: the snapshot codec and the channel's messages.
@Suite("Snapshot codec and channel messages")
struct SnapshotCodecTests {
    @Test func snapshotsRoundTripExactly() throws {
        let snapshot = FeedSnapshotSample.make()
        let bytes = SnapshotCodec.encode(snapshot)
        let decoded = try SnapshotCodec.decode(bytes, epoch: 42)
        #expect(decoded.version == snapshot.version)
        #expect(decoded.epoch == 42)
        #expect(decoded.entries == snapshot.entries)
        #expect(decoded.updatedAt == snapshot.updatedAt)
        #expect(SnapshotCodec.encode(decoded) == bytes)
    }

    @Test(arguments: [
        "", "[]", "{\"version\":0,\"updatedAt\":0,\"entries\":[]}",
        "{\"version\":2,\"updatedAt\":0,\"entries\":[{\"id\":1,\"title\":\"t\",\"body\":\"\",\"createdAt\":0,\"addedIn\":3}]}",
        "{\"version\":2,\"updatedAt\":0,\"entries\":[{\"id\":-1,\"title\":\"t\",\"body\":\"\",\"createdAt\":0,\"addedIn\":1}]}",
    ])
    func badSnapshotsAreRefused(text: String) {
        #expect(throws: RedisError.self) { try SnapshotCodec.decode(Array(text.utf8), epoch: 1) }
    }

    @Test func channelMessagesParse() {
        #expect(
            ChannelMessage(Array("s7 1764619200123456 {}".utf8))
                == .committed(reload: 7, epoch: 1_764_619_200_123_456, snapshot: Array("{}".utf8)))
        #expect(
            ChannelMessage(ChannelMessage.unchanged(reload: 3, version: 9))
                == .unchanged(reload: 3, version: 9))
        #expect(
            ChannelMessage(ChannelMessage.failed(reload: 2, base: 5, message: "data file x: bad"))
                == .failed(reload: 2, base: 5, message: "data file x: bad"))
        for junk in ["", "s", "sx {}", "s1 {}", "s1 x {}", "s1 -3 {}", "u1 x", "f1 x y", "z1 2"] {
            #expect(ChannelMessage(Array(junk.utf8)) == nil, "\(junk)")
        }
    }
}
