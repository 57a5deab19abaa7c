public import Feed
public import FeedParsing
import Foundation
import HTTPClient
public import Logging
import Synchronization

/// The subscriptions of a river whose list of feeds lives in a database: the
/// ``Feed/SubscriptionBook`` the Feeds page and `/api/sources` change, over a ``River`` and its
/// ``Feed/SubscriptionRecords``.
///
/// - **Kept, then joined.** A change is committed to the records, then made to the river's
///   members, under one lock (so two changes never interleave between the check of a limit or a
///   duplicate and the write), then answered.
/// - **Fetched at once.** A new source is fetched by a reload marked as scheduled
///   (``ReloadTrigger``): only what is due, which a new member always is, so the other sources
///   are not fetched again; its items are published by the store, and open pages get them over
///   the event stream. ``subscribe(_:)`` waits for that fetch (its report then says how it
///   went); ``importOPML(_:)`` starts it and answers.
/// - **Removed at once.** A removed source's items leave with the next reload (the river merges
///   only its members' items); ``unsubscribe(key:)`` runs such a reload (again fetching only
///   what is due) and answers once the store's snapshot holds none of them.
/// - **The operator's sources** (``Feed/SubscriptionOrigin/commandLine``) are renamed and moved
///   here, removed only from the command line.
public final class RiverSubscriptions: SubscriptionBook {
    /// The most sources a river takes.
    public static let maxSources = SubscriptionList.maxSources
    /// The longest title, in characters.
    public static let maxTitle = 200
    /// The longest folder name, in characters.
    public static let maxFolder = 100
    /// The largest OPML document imported.
    public static let maxOPMLBytes = 1 << 20
    /// How many reloads a change waits for before it answers anyway (each joins a reload in
    /// flight, which may have started before the change).
    static let reloadAttempts = 3

    /// The river whose members these are.
    public let river: River
    private let records: any SubscriptionRecords
    private let finder: FeedFinder
    private let logger: Logger
    private let backend = Mutex<(any FeedBackend)?>(nil)
    /// Held while a change is checked, kept and joined (never across a suspension).
    private let changes = Mutex(())
    /// The fetch an import started, for tests and an orderly stop.
    private let background = Mutex<Task<Void, Never>?>(nil)

    /// Creates the book; ``attach(_:)`` gives it the store to reload once there is one (the store
    /// is built over the river, so after this).
    public init(river: River, records: any SubscriptionRecords, finder: FeedFinder, logger: Logger = Logger())
    {
        self.river = river
        self.records = records
        self.finder = finder
        self.logger = logger
    }

    /// The store whose reloads fetch new sources and drop removed ones' items.
    public func attach(_ backend: any FeedBackend) {
        self.backend.withLock { $0 = backend }
    }

    /// Waits for the fetch an import started, if any.
    public func settle() async {
        await background.withLock { $0 }?.value
    }

    // MARK: SourceDirectory

    /// Every source, in the order they were added.
    public var reports: [SourceReport] { river.reports }
    /// The river's status generation (grows with every change of a source too).
    public var statusGeneration: Int { river.statusGeneration }
    /// The source of an item.
    public func label(forItemID id: String) -> SourceLabel? { river.label(forItemID: id) }
    /// The source with `key`.
    public func label(forKey key: String) -> SourceLabel? { river.label(forKey: key) }

    // MARK: SubscriptionBook

    /// The folders in use, sorted as people read them.
    public var folders: [String] {
        Set(river.records.compactMap(\.folder)).sorted {
            $0.localizedStandardCompare($1) == .orderedAscending
        }
    }

    /// Subscribes to the feed `request.address` leads to (see the protocol), fetches it, and
    /// returns its report.
    public func subscribe(_ request: SubscribeRequest) async throws(SubscriptionError) -> SourceReport {
        let title = try Self.cleaned(request.title, limit: Self.maxTitle, what: "title")
        let folder = try Self.cleaned(request.folder, limit: Self.maxFolder, what: "folder")
        let address = try SubscriptionAddress.normalize(request.address)
        try refuseExisting(SourceKey.of(address))
        try refuseWhenFull(adding: 1)
        let feedURL: URL
        switch try await finder.find(address) {
        case .feed(let url, _):
            feedURL = url
        case .candidates(let candidates):
            throw SubscriptionError(
                .severalFeeds, "The page names \(candidates.count) feeds: choose one.", candidates: candidates
            )
        }
        guard feedURL.absoluteString.utf8.count <= SubscriptionAddress.maxBytes else {
            throw SubscriptionError(
                .badAddress, "The feed's address is longer than \(SubscriptionAddress.maxBytes) bytes.")
        }
        let record = SubscriptionRecord(url: feedURL, title: title, folder: folder, origin: .owner)
        let added = try join([record])
        guard let kept = added.first else {
            throw Self.alreadySubscribed(record.key)
        }
        logger.notice("subscribed to \(Self.shown(feedURL)) (source \(kept.key))")
        await fetchNew([kept.key])
        return report(kept.key)
            ?? SourceReport(
                label: SourceLabel(key: kept.key, title: title ?? feedURL.host ?? kept.key, folder: folder),
                feedURL: ShownURL.withoutCredentials(feedURL), displayURL: Self.shown(feedURL), origin: .owner
            )
    }

    /// Changes a source's title and/or folder (nil: as it is; empty: cleared).
    public func update(key: String, title: String?, folder: String?) async throws(SubscriptionError)
        -> SourceReport
    {
        let title = try title.map { text throws(SubscriptionError) in
            try Self.cleaned(text, limit: Self.maxTitle, what: "title") ?? ""
        }
        let folder = try folder.map { text throws(SubscriptionError) in
            try Self.cleaned(text, limit: Self.maxFolder, what: "folder") ?? ""
        }
        try changes.withLock { _ throws(SubscriptionError) in
            guard river.record(forKey: key) != nil else { throw Self.notFound(key) }
            guard let kept = try records.update(key: key, title: title, folder: folder) else {
                throw Self.notFound(key)
            }
            river.update(kept)
        }
        guard let report = report(key) else { throw Self.notFound(key) }
        return report
    }

    /// Removes an owner's source; its items leave the river before this returns.
    public func unsubscribe(key: String) async throws(SubscriptionError) {
        try changes.withLock { _ throws(SubscriptionError) in
            guard let record = river.record(forKey: key) else { throw Self.notFound(key) }
            guard record.origin == .owner else {
                throw SubscriptionError(
                    .operatorSource,
                    "This feed is the server's own (--source or --sources on its command line): it can be "
                        + "renamed and moved here, and removed only from the command line.")
            }
            _ = try records.remove(key: key)
            river.remove(key: key)
        }
        logger.notice("unsubscribed from source \(key)")
        await river.forgetState(of: key)
        await dropItems(of: key)
    }

    /// Adds every feed of an OPML document (folders kept, one level; see the type's doc).
    public func importOPML(_ document: [UInt8]) async throws(SubscriptionError) -> OPMLImport {
        guard document.count <= Self.maxOPMLBytes else {
            throw SubscriptionError(.badOPML, "The OPML file is larger than 1 MiB.")
        }
        let reading: SubscriptionList.Reading
        do {
            reading = try SubscriptionList.read(document: Data(document))
        } catch {
            throw SubscriptionError(.badOPML, "That is not an OPML subscription list: \(error.message).")
        }
        var problems = reading.refused
        var skipped = reading.duplicates + reading.refusedCount
        var candidates: [SubscriptionRecord] = []
        for subscription in reading.subscriptions {
            guard subscription.url.absoluteString.utf8.count <= SubscriptionAddress.maxBytes else {
                skipped += 1
                Self.note("an xmlUrl longer than \(SubscriptionAddress.maxBytes) bytes", in: &problems)
                continue
            }
            candidates.append(
                SubscriptionRecord(
                    url: subscription.url, title: subscription.title.map { String($0.prefix(Self.maxTitle)) },
                    folder: subscription.folder.map {
                        String($0.prefix(Self.maxFolder)).trimmingCharacters(in: .whitespaces)
                    }.flatMap { $0.isEmpty ? nil : $0 },
                    origin: .owner))
        }
        let (added, full) = try changes.withLock {
            _ throws(SubscriptionError) -> ([SubscriptionRecord], Int) in
            let fresh = candidates.filter { river.record(forKey: $0.key) == nil }
            let room = max(0, Self.maxSources - river.keys.count)
            let kept = try records.add(Array(fresh.prefix(room)))
            river.add(kept)
            return (kept, max(0, fresh.count - room))
        }
        skipped += candidates.count - added.count
        if full > 0 { Self.note("\(full) beyond the limit of \(Self.maxSources) feeds", in: &problems) }
        logger.notice("OPML import: \(added.count) added, \(skipped) skipped")
        if !added.isEmpty {
            let keys = added.map(\.key)
            let task = Task { await self.fetchNew(keys) }
            background.withLock { $0 = task }
        }
        return OPMLImport(added: added.count, skipped: skipped, problems: problems)
    }

    // MARK: Steps

    /// Keeps `records` and makes them members; returns those that were not subscribed yet.
    private func join(_ new: [SubscriptionRecord]) throws(SubscriptionError) -> [SubscriptionRecord] {
        try changes.withLock { _ throws(SubscriptionError) -> [SubscriptionRecord] in
            let fresh = new.filter { river.record(forKey: $0.key) == nil }
            guard river.keys.count + fresh.count <= Self.maxSources else { throw Self.tooMany }
            let kept = try records.add(fresh)
            river.add(kept)
            return kept
        }
    }

    /// Reloads (only what is due) until the river fetched each of `keys` (or they left).
    private func fetchNew(_ keys: [String]) async {
        guard let backend = backend.withLock({ $0 }) else { return }
        for _ in 0..<Self.reloadAttempts {
            await reloadDue(backend)
            if keys.allSatisfy({ river.hasBeenFetched(key: $0) || river.record(forKey: $0) == nil }) {
                return
            }
        }
    }

    /// Reloads (only what is due) until the store's snapshot holds no item of `key`.
    private func dropItems(of key: String) async {
        guard let backend = backend.withLock({ $0 }) else { return }
        for _ in 0..<Self.reloadAttempts {
            await reloadDue(backend)
            let left = backend.current.entries.contains {
                RiverItemID.key(of: $0.item.id).map(String.init) == key
            }
            if !left { return }
        }
        logger.warning("source \(key) was removed; its items leave the river at the next reload")
    }

    private func reloadDue(_ backend: any FeedBackend) async {
        do {
            _ = try await ReloadTrigger.$isScheduled.withValue(true) { try await backend.reload() }
        } catch {
            logger.warning("reload after a change of the subscriptions failed: \(error)")
        }
    }

    private func report(_ key: String) -> SourceReport? {
        river.reports.first { $0.label.key == key }
    }

    private func refuseExisting(_ key: String) throws(SubscriptionError) {
        if river.record(forKey: key) != nil { throw Self.alreadySubscribed(key) }
    }

    private func refuseWhenFull(adding count: Int) throws(SubscriptionError) {
        if river.keys.count + count > Self.maxSources { throw Self.tooMany }
    }

    // MARK: Messages

    /// `text` trimmed (nil or empty: nil); longer than `limit` characters throws.
    static func cleaned(_ text: String?, limit: Int, what: String) throws(SubscriptionError) -> String? {
        guard let text else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        guard trimmed.count <= limit else {
            throw SubscriptionError(.badAddress, "The \(what) is longer than \(limit) characters.")
        }
        return trimmed
    }

    private static func note(_ problem: String, in problems: inout [String]) {
        if problems.count < 5 { problems.append(problem) }
    }

    private static func alreadySubscribed(_ key: String) -> SubscriptionError {
        SubscriptionError(.alreadySubscribed, "You are already subscribed to this feed.", existingKey: key)
    }

    private static func notFound(_ key: String) -> SubscriptionError {
        SubscriptionError(.notFound, "No feed has the key \(key.prefix(40)).")
    }

    private static var tooMany: SubscriptionError {
        SubscriptionError(.tooMany, "The river holds at most \(maxSources) feeds: remove one first.")
    }

    /// A URL as the log shows it (``Feed/ShownURL``).
    private static func shown(_ url: URL) -> String { ShownURL.text(of: url) ?? "(feed)" }
}
