public import Feed
import FeedParsing
import Foundation
import Synchronization

/// What the routes read of the river's sources: reports, labels and the status generation.
extension River {
    /// Every source and how its fetches go.
    public var reports: [SourceReport] {
        let members = membership.withLock { $0.members }
        let known = known.withLock { $0 }
        return members.map { member in
            let state = known.states[member.key] ?? SourceState()
            return SourceReport(
                label: label(member, state), feedURL: ShownURL.withoutCredentials(member.subscription.url),
                displayURL: member.upstream.displayURL, lastSuccess: state.lastSuccess,
                lastError: state.lastError, recovered: state.recovered,
                failingSince: state.failingSince, consecutiveFailures: state.failures,
                nextFetch: isScheduled ? state.nextFetch : nil, items: known.itemCounts[member.key] ?? 0,
                origin: member.record.origin)
        }
    }

    /// Grows whenever a source starts or stops failing.
    public var statusGeneration: Int { known.withLock { $0.generation } }

    /// The source of an item id.
    public func label(forItemID id: String) -> SourceLabel? {
        RiverItemID.key(of: id).flatMap { label(forKey: String($0)) }
    }

    /// The label of the source with `key`.
    public func label(forKey key: String) -> SourceLabel? {
        guard let member = membership.withLock({ $0.member(key) }) else { return nil }
        return label(member, known.withLock { $0.states[member.key] } ?? SourceState())
    }

    private func label(_ member: Member, _ state: SourceState) -> SourceLabel {
        let title =
            member.subscription.title ?? state.hints.title ?? member.subscription.url.host ?? member.key
        return SourceLabel(
            key: member.key, title: title, siteURL: state.hints.siteURL, folder: member.record.folder)
    }
}
