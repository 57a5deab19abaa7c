import Feed
import Foundation
import Mustache

/// What the Feeds page (`/feeds`) shows for one request: the sources grouped by folder, the
/// forms when the owner may change them (each carrying the session's CSRF token), and at most
/// one message, one chooser of candidates or one removal to confirm.
struct FeedsPage: Sendable {
    /// Whether the list can change here, and if not why.
    enum Mode: Sendable, Equatable {
        /// A subscription book and someone allowed to use it: the forms are shown.
        case editable
        /// No subscription book: the list is the command line's.
        case readOnly
        /// A book, but no owner set yet: changes are refused until one is.
        case noOwner
    }

    /// A localized notice after a change (`?done=`), or an error message with its status.
    enum Message: Sendable, Equatable {
        case notice(String)
        case error(String)
    }

    var mode: Mode
    var reports: [SourceReport]
    var folders: [String]
    /// The session's CSRF token (nil for an app token, or without a gate).
    var csrfToken: String?
    var message: Message?
    /// With a notice about one source (added, saved, already subscribed): the link to its items.
    var highlight: SourceLabel?
    /// The add form's values, kept after an error or given by a share.
    var address = ""
    var title = ""
    var folder = ""
    /// A page that names several feeds: the person chooses one.
    var candidates: [FeedCandidate] = []
    /// The source whose removal is to be confirmed.
    var confirmRemoval: SourceLabel?

    /// The Mustache context, strings from `strings` (one language's table).
    func context(strings: [String: String], language: String, direction: String) -> MustacheValue {
        let editable = mode == .editable
        let csrf: MustacheValue = csrfToken.map { .string($0) } ?? .null
        let folderChoices: (String?) -> MustacheValue = { current in
            .list(folders.map { .object(["name": .string($0), "selected": .bool($0 == current)]) })
        }
        var groups: [MustacheValue] = []
        let named = folders.filter { name in reports.contains { $0.label.folder == name } }
        for name in named + [""] {
            let members = reports.filter { ($0.label.folder ?? "") == name }
            guard !members.isEmpty else { continue }
            groups.append(
                .object([
                    "name": name.isEmpty ? .null : .string(name),
                    "query": .string(FormEncoding.encode(name)),
                    "sources": .list(members.map { source($0, folderChoices: folderChoices, csrf: csrf) }),
                ]))
        }
        var context: [String: MustacheValue] = [
            "lang": .string(language),
            "dir": .string(direction),
            "t": .object(strings.mapValues { .string($0) }),
            "editable": .bool(editable),
            "readOnly": .bool(mode == .readOnly),
            "noOwner": .bool(mode == .noOwner),
            "csrf": csrf,
            "groups": .list(groups),
            "hasSources": .bool(!reports.isEmpty),
            "address": .string(address),
            "title": .string(title),
            "folderOptions": folderChoices(folder.isEmpty ? nil : folder),
            "newFolder": .string(folders.contains(folder) ? "" : folder),
            "hasFolders": .bool(!folders.isEmpty),
            "maxOPML": .string(String(FeedApp.maxOPMLBytes)),
        ]
        switch message {
        case .notice(let text)?: context["notice"] = .string(text)
        case .error(let text)?: context["error"] = .string(text)
        case nil: break
        }
        if let highlight {
            context["highlight"] = .object(["key": .string(highlight.key), "title": .string(highlight.title)])
        }
        if !candidates.isEmpty, editable {
            context["choose"] = .object([
                "candidates": .list(
                    candidates.enumerated().map { index, candidate in
                        .object([
                            "url": .string(candidate.url), "title": .string(candidate.title ?? candidate.url),
                            "type": .string(candidate.type.uppercased()), "first": .bool(index == 0),
                        ])
                    }),
                "title": .string(title), "folder": .string(folder),
            ])
        }
        if let confirmRemoval, editable {
            context["confirm"] = .object([
                "key": .string(confirmRemoval.key), "title": .string(confirmRemoval.title),
            ])
        }
        return .object(context)
    }

    private func source(
        _ report: SourceReport, folderChoices: (String?) -> MustacheValue, csrf: MustacheValue
    ) -> MustacheValue {
        var fields: [String: MustacheValue] = [
            "key": .string(report.label.key),
            "title": .string(report.label.title),
            "url": .string(report.displayURL),
            "folderOptions": folderChoices(report.label.folder),
            // Not the add form's value, which the root context holds under the same name.
            "newFolder": .string(""),
            "failing": report.lastError.map { .string($0) } ?? .null,
            "highlighted": .bool(highlight?.key == report.label.key),
            // The operator's are removed only from the command line: no Remove link.
            "operator": .bool(report.isOperator),
        ]
        if let site = report.label.siteURL, ItemLink.isSafe(site) {
            fields["site"] = .string(site)
            fields["siteHost"] = .string(URL(string: site)?.host ?? site)
        }
        if let success = report.lastSuccess {
            fields["lastSuccess"] = .string(Timestamp.iso(success))
            fields["lastSuccessDisplay"] = .string(Timestamp.display(success))
        }
        return .object(fields)
    }
}
