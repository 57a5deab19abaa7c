/// The figures of sign-in, sessions and tokens (docs/owner.md explains each).
public struct OwnerPolicy: Sendable {
    /// A session ends this long after its last use (sliding expiry): 30 days.
    public var sessionLifetime: Duration = .seconds(30 * 24 * 3600)
    /// A session's last use is written at most this often (so a request is a read, not a
    /// write): 1 hour. The expiry moves forward with it.
    public var sessionTouchInterval: Duration = .seconds(3600)
    /// A token's "last used" is written at most this often: 1 minute.
    public var tokenTouchInterval: Duration = .seconds(60)
    /// Failed sign-ins from one address (an IPv6 address counts by its /64) before it is
    /// throttled: 5 …
    public var failuresPerAddress = 5
    /// … within this window: 15 minutes.
    public var failureWindow: Duration = .seconds(15 * 60)
    /// Failed sign-ins from all addresses together before every sign-in waits: 30 …
    public var failuresEverywhere = 30
    /// … within this window: 1 minute (a guess spread over many addresses gets at most 30 a
    /// minute).
    public var everywhereWindow: Duration = .seconds(60)
    /// Password verifications running at once (each holds 64 MiB and ~0.1 s of a core): 2.
    public var concurrentVerifications = 2
    /// How long a sign-in waits for a verification slot before it is answered busy: 2 seconds.
    public var slotWait: Duration = .seconds(2)
    /// Addresses whose failures are remembered at most (the oldest are forgotten first): 10,000.
    public var rememberedAddresses = 10_000

    /// The figures above.
    public static let standard = OwnerPolicy()

    /// Creates the standard figures; change the fields to differ.
    public init() {}
}
