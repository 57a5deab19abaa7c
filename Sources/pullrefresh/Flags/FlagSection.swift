/// The groups of `--help` and of the flag reference in docs/configuration.md, in their order.
enum FlagSection: CaseIterable, Sendable {
    case server
    case feed
    case storage
    case owner
    case river
    case limits
    case pictures
    case tls
    case logs
    case cluster
    case general

    /// The heading of the group.
    var title: String {
        switch self {
        case .server: "Server"
        case .feed: "The feed"
        case .storage: "Keeping the feed (a database)"
        case .owner: "The owner (sign-in)"
        case .river: "Feeds fetched from the web (a river)"
        case .limits: "Connections and limits"
        case .pictures: "Pictures"
        case .tls: "HTTPS"
        case .logs: "Logs and metrics"
        case .cluster: "Several instances (one shared feed)"
        case .general: "General"
        }
    }
}
