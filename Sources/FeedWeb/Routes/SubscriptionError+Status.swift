import Feed

extension SubscriptionError {
    /// The status the surfaces answer with (each code's doc comment names it).
    var status: Int {
        switch code {
        case .badAddress, .refusedAddress, .noFeed, .unreachable, .tooMany: 422
        case .severalFeeds, .alreadySubscribed, .operatorSource, .readOnly: 409
        case .notFound: 404
        case .badOPML: 400
        case .storage: 503
        }
    }

    /// What the Feeds page and the API say when there is no subscription book: the list is
    /// the command line's.
    static let readOnlyHere = SubscriptionError(
        .readOnly,
        "These feeds come from the command line: start the server with --database FILE to add, rename and remove feeds here."
    )
}
