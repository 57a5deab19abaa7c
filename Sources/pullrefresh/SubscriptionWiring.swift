import Feed
import FeedParsing
import Foundation
import HTTPClient
import Logging
import Metrics
import River
import Storage

/// With `--database` (and no `--data`): the river over the database's `subscriptions` table,
/// whose list the owner changes at runtime (``River/RiverSubscriptions``).
struct SubscriptionWiring {
    /// The river, over the table's sources.
    let river: River
    /// What the Feeds page and `/api/sources` change.
    let book: RiverSubscriptions
    /// The first items of a new file (the demo's, or the first fetch); empty when restoring.
    let initial: [FeedItem]
    /// The snapshot to carry on from: the file's, without the items of sources no longer
    /// listed (written back before serving, so file and table agree), nil for a new file.
    let restoring: FeedSnapshot?

    /// Syncs the command line's sources into the table (the operator's rows), builds the river
    /// over it (the demo generator standing in until a first source ever), and reads or makes
    /// its first items.
    static func start(
        _ config: Configuration, database: FeedDatabase, restored: FeedDatabase.Contents?,
        metrics: MetricsRegistry?, logger: Logger
    ) async throws -> SubscriptionWiring {
        let table = try SubscriptionTable(database)
        let commandLine = config.subscriptions.map {
            SubscriptionRecord(url: $0.url, title: $0.title, folder: $0.folder, origin: .commandLine)
        }
        let records: [SubscriptionRecord]
        let hasHadSources: Bool
        do {
            records = try table.syncCommandLine(commandLine)
            hasHadSources = try table.hasEverHadSources()
        } catch {
            throw StorageError("database \(database.path): \(error.message)")
        }
        let ownerPolicy = config.ownerFeedPolicy
        let river = River(
            records: records, limits: config.sourceLimits, concurrency: config.sourceConcurrency,
            refreshEvery: config.refreshEvery, history: config.history, registry: metrics,
            ownerPolicy: ownerPolicy,
            demo: DelayedSource(GeneratorSource(seed: config.seed), delay: config.reloadDelay),
            hasHadMembers: hasHadSources)
        await river.useStateStore(database)
        let book = RiverSubscriptions(
            river: river, records: table,
            finder: FeedFinder(limits: config.sourceLimits, policy: ownerPolicy),
            logger: logger)
        guard let kept = restored?.snapshot else {
            // A new file: the demo's items, or the first fetch of the operator's sources (when
            // every one fails the start fails, like a bad --data).
            let initial =
                river.isDemo
                ? GeneratorSource(seed: config.seed).initialItems(count: min(12, config.maxItems))
                : try await river.fetch(current: [])
            return SubscriptionWiring(river: river, book: book, initial: initial, restoring: nil)
        }
        var restoring = kept
        if !river.isDemo {
            // Items of sources no longer listed (an operator's source left the command line, or
            // the demo's once a source joined) leave before anything is served.
            let keys = Set(river.keys)
            let entries = kept.entries.filter { entry in
                RiverItemID.key(of: entry.item.id).map { keys.contains(String($0)) } ?? false
            }
            if entries.count != kept.entries.count {
                restoring = FeedSnapshot(
                    version: kept.version + 1, updatedAt: Date(), entries: entries, epoch: kept.epoch,
                    revision: kept.revision + 1)
                try database.write(restoring, replacing: kept)
                logger.notice(
                    "database \(database.path): \(kept.entries.count - entries.count) items of sources no longer "
                        + "listed removed")
            }
        }
        river.countHeld(restoring.items)
        return SubscriptionWiring(river: river, book: book, initial: [], restoring: restoring)
    }
}
