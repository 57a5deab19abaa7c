import Foundation
import Synchronization

@testable import Feed

/// A subscription book in memory, for the web surfaces' own tests (statuses, forms, documents):
/// its answers are scripted by the address, so each refusal the real river gives can be asked
/// for. The river's real book is tested over the wire (Tests/owner/test_subscriptions.py).
///
/// - an address containing `several` names two feeds; `nofeed` leads to none; `private` is
///   refused; `storage` fails as a database would; an address already held is already subscribed.
/// - keys in ``operatorKeys`` are the command line's: renamed and moved, never removed.
final class SubscriptionBookDouble: SubscriptionBook, Sendable {
    private struct State {
        var reports: [SourceReport] = []
        var generation = 0
    }

    private let state = Mutex(State())
    let operatorKeys: Set<String>

    /// A book holding `feeds` (URL, folder), the first `operators` of them the operator's.
    init(feeds: [(url: String, folder: String?)] = [], operators: Int = 0) {
        let reports = feeds.enumerated().map { position, feed in
            Self.report(
                url: feed.url, title: nil, folder: feed.folder,
                origin: position < operators ? .commandLine : .owner)
        }
        operatorKeys = Set(reports.prefix(operators).map(\.label.key))
        state.withLock { $0.reports = reports }
    }

    static func key(_ url: String) -> String {
        StableHash.hex(StableHash.fnv1a(url), digits: 12)
    }

    static func report(
        url: String, title: String?, folder: String?, origin: SubscriptionOrigin = .owner
    ) -> SourceReport {
        let host = URL(string: url)?.host ?? url
        return SourceReport(
            label: SourceLabel(
                key: key(url), title: title ?? host, siteURL: "https://\(host)/", folder: folder),
            feedURL: url, displayURL: url, lastSuccess: Date(timeIntervalSince1970: 1_700_000_000),
            origin: origin)
    }

    var reports: [SourceReport] { state.withLock { $0.reports } }
    var statusGeneration: Int { state.withLock { $0.generation } }

    func label(forItemID id: String) -> SourceLabel? {
        RiverItemID.key(of: id).flatMap { label(forKey: String($0)) }
    }

    func label(forKey key: String) -> SourceLabel? {
        reports.first { $0.label.key == key }?.label
    }

    var folders: [String] { Set(reports.compactMap(\.label.folder)).sorted() }

    func subscribe(_ request: SubscribeRequest) async throws(SubscriptionError) -> SourceReport {
        let address = request.address
        if address.contains("several") {
            throw SubscriptionError(
                .severalFeeds, "The page names 2 feeds: choose one.",
                candidates: [
                    FeedCandidate(url: "http://choice.example/rss.xml", title: "Posts", type: "rss"),
                    FeedCandidate(url: "http://choice.example/atom.xml", title: nil, type: "atom"),
                ])
        }
        if address.contains("nofeed") {
            throw SubscriptionError(.noFeed, "No feed was found at \(address).")
        }
        if address.contains("private") {
            throw SubscriptionError(.refusedAddress, "\(address) is inside the network.")
        }
        if address.contains("storage") {
            throw SubscriptionError(.storage, "The database is busy.")
        }
        if let held = reports.first(where: { $0.feedURL == address }) {
            throw SubscriptionError(
                .alreadySubscribed, "Already subscribed as \(held.label.title).", existingKey: held.label.key)
        }
        guard address.hasPrefix("http://") || address.hasPrefix("https://") else {
            throw SubscriptionError(.badAddress, "\(address) is not a web address.")
        }
        let report = Self.report(url: address, title: request.title, folder: request.folder)
        state.withLock {
            $0.reports.append(report)
            $0.generation += 1
        }
        return report
    }

    func update(key: String, title: String?, folder: String?) async throws(SubscriptionError) -> SourceReport
    {
        let updated = state.withLock { state -> SourceReport? in
            guard let index = state.reports.firstIndex(where: { $0.label.key == key }) else { return nil }
            if let title {
                state.reports[index].label.title =
                    title.isEmpty ? (URL(string: state.reports[index].feedURL)?.host ?? "") : title
            }
            if let folder { state.reports[index].label.folder = folder.isEmpty ? nil : folder }
            state.generation += 1
            return state.reports[index]
        }
        guard let updated else { throw SubscriptionError(.notFound, "No feed has the key \(key).") }
        return updated
    }

    func unsubscribe(key: String) async throws(SubscriptionError) {
        if operatorKeys.contains(key) {
            throw SubscriptionError(.operatorSource, "This feed is on the command line: remove it there.")
        }
        let removed = state.withLock { state -> Bool in
            let before = state.reports.count
            state.reports.removeAll { $0.label.key == key }
            state.generation += 1
            return state.reports.count < before
        }
        if !removed { throw SubscriptionError(.notFound, "No feed has the key \(key).") }
    }

    /// Reads `xmlUrl="…"` attributes (enough for the surfaces' tests; the river parses OPML).
    func importOPML(_ document: [UInt8]) async throws(SubscriptionError) -> OPMLImport {
        let text = String(decoding: document, as: UTF8.self)
        guard text.contains("<opml") else {
            throw SubscriptionError(.badOPML, "This is not an OPML document.")
        }
        var added = 0
        var skipped = 0
        for piece in text.components(separatedBy: "xmlUrl=\"").dropFirst() {
            guard let end = piece.firstIndex(of: "\"") else { continue }
            do throws(SubscriptionError) {
                _ = try await subscribe(SubscribeRequest(address: String(piece[..<end])))
                added += 1
            } catch {
                skipped += 1
            }
        }
        return OPMLImport(added: added, skipped: skipped)
    }
}
