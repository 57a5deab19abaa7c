// Until branch `discovery` lands: the agreed signature of FeedParsing's FeedFinder, so this
// module compiles. Removed by the merge.
public import Feed
public import Foundation
public import HTTPClient

public struct FeedFinder: Sendable {
    public init(limits: FetchLimits, policy: AddressPolicy) {}
    public func find(_ address: URL) async throws(SubscriptionError) -> FoundFeeds {
        .feed(address, title: nil)
    }
}

public enum FoundFeeds: Sendable, Equatable {
    case feed(URL, title: String?)
    case candidates([FeedCandidate])
}
