/// What a sign-in attempt came to.
public enum SignInOutcome: Sendable, Equatable {
    /// The password was right: a new session, made for this sign-in (never one the client
    /// brought, so a planted cookie cannot be fixed on the owner).
    case signedIn(NewSession)
    /// The password was wrong (the failure is counted and logged with the address).
    case wrongPassword
    /// This address failed too often lately: refused without looking at the password (right
    /// or wrong alike, so a throttled guesser learns nothing), for `retryAfter` seconds.
    case throttled(retryAfter: Int)
    /// Too many sign-ins at once or too many failures from everywhere lately (the bound on a
    /// guess spread over many addresses): try again in `retryAfter` seconds.
    case busy(retryAfter: Int)
    /// No owner is set: there is nothing to sign in to.
    case noOwner
}
