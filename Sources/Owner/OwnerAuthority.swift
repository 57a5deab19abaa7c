import Dispatch
public import Foundation
public import Logging
import Secrets
public import Storage
import Synchronization

/// Who is this? The owner's side of every request: sign-in with its throttles, sessions,
/// app tokens and CSRF tokens, over ``Storage/OwnerRecords``.
///
/// - Sessions and tokens are stored as their keyed hash (``Secrets/KeyedHash`` with the
///   database's key), never in clear; the password as an Argon2id hash.
/// - Every lookup reads the file (a primary-key read), so what `pullrefresh owner …` changes
///   while the server runs counts at the next request. ``session(cookieValue:)`` and
///   ``token(bearer:)`` are cheap enough for the server's request threads; the writes they
///   cause (a session's sliding expiry, a token's last use) go to a background queue, at most
///   once per ``OwnerPolicy/sessionTouchInterval`` / ``OwnerPolicy/tokenTouchInterval``.
/// - A failure to read the file fails closed: no session, no token, and ``hasOwner`` true.
public final class OwnerAuthority: Sendable {
    private let records: OwnerRecords
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let policy: OwnerPolicy
    private let keyedHash = Mutex<KeyedHash?>(nil)
    private let throttle: Mutex<SignInThrottle>
    private let slots: VerificationSlots
    /// Background writes (touches, pruning), one at a time in order.
    private let writes = DispatchQueue(label: "pullrefresh.owner.writes", qos: .utility)
    /// Hashes whose touch is queued, so a burst of requests queues one write.
    private let touching = Mutex<Set<[UInt8]>>([])
    /// Whether the file was seen to have an owner (it then always has one).
    private let ownerSeen = Atomic<Bool>(false)
    /// Seconds a client is asked to wait when the database failed under a sign-in.
    static let storageRetry = 5

    /// An authority over `records`; `now` is the clock of every expiry and throttle window.
    public init(
        records: OwnerRecords, now: @escaping @Sendable () -> Date = { Date() }, logger: Logger = Logger(),
        policy: OwnerPolicy = .standard
    ) {
        self.records = records
        self.now = now
        self.logger = logger
        self.policy = policy
        throttle = Mutex(SignInThrottle(policy: policy))
        slots = VerificationSlots(capacity: policy.concurrentVerifications)
    }

    /// Reads the key of the keyed hash from the file (making and storing it when the file has
    /// none) now, so the first request does not wait for that write: call it at start. Throws
    /// when the file cannot give it (the server then refuses to start rather than refusing every
    /// session).
    public func prepare() throws(StorageError) {
        _ = try loadedHash()
    }

    /// Whether an owner is set: read from the file until it says yes (a password set by the
    /// command line while the server runs counts at once), then kept, since nothing in
    /// pullrefresh removes an owner. True when the file cannot be read, so the server asks for
    /// sign-in rather than opening every route.
    public var hasOwner: Bool {
        if ownerSeen.load(ordering: .relaxed) { return true }
        do {
            let found = try records.hasOwner()
            if found { ownerSeen.store(true, ordering: .relaxed) }
            return found
        } catch {
            logger.error("owner: \(error.message); treating the server as owned until the file can be read")
            return true
        }
    }

    /// The most password verifications that ran at once since start (at most
    /// ``OwnerPolicy/concurrentVerifications``).
    public var peakVerifications: Int { slots.peak }

    // MARK: Sign-in

    /// Checks `password` for a sign-in from `address` (the client's IP address as the server
    /// sees it); on success makes a new session. Throttled and busy attempts are refused before
    /// the password is looked at. Every failure and refusal is logged with the address, never
    /// the password.
    public func signIn(password: String, address given: String) async -> SignInOutcome {
        let address = Self.printable(given)
        let owner: OwnerAccount
        do {
            guard let found = try records.owner() else { return .noOwner }
            owner = found
        } catch {
            logger.error("sign-in from \(address): \(error.message)")
            return .busy(retryAfter: Self.storageRetry)
        }
        let key = ThrottleKey.of(address)
        if let refusal = throttle.withLock({ $0.admit(key, at: now()) }) {
            switch refusal {
            case .throttled(let seconds):
                logger.warning(
                    "sign-in refused from \(address): throttled (too many failures) for \(seconds) s")
                return .throttled(retryAfter: seconds)
            case .busy(let seconds):
                logger.warning("sign-in refused from \(address): busy (too many attempts) for \(seconds) s")
                return .busy(retryAfter: seconds)
            }
        }
        guard await slots.acquire(waiting: policy.slotWait) else {
            throttle.withLock { $0.withdraw(key) }
            logger.warning("sign-in refused from \(address): busy (verifications in flight)")
            return .busy(retryAfter: 1)
        }
        let matched = await Self.verify(password, against: owner.passwordHash)
        slots.release()
        let finished = now()
        let failures = throttle.withLock { throttle in
            throttle.finish(key, at: finished, failed: !matched)
            return throttle.failureCount(key, at: finished)
        }
        guard matched else {
            logger.warning(
                "sign-in failed from \(address): wrong password (\(failures) of \(policy.failuresPerAddress) "
                    + "within \(Int(policy.failureWindow.interval / 60)) minutes)")
            return .wrongPassword
        }
        // Storing the session may wait for the feed's write lock (the busy timeout): not on the
        // cooperative pool either.
        return await Self.offPool { [self] in makeSession(for: owner, address: address, at: finished) }
    }

    /// `address` as it may appear in a log line: control characters (a forged line break
    /// from a header) shown as `?`, at most 100 characters.
    static func printable(_ address: String) -> String {
        String(
            String.UnicodeScalarView(
                address.unicodeScalars.prefix(100).map {
                    $0.properties.generalCategory == .control ? "?" : $0
                }))
    }

    /// Runs the Argon2id verification on a thread of its own: it blocks for ~0.1 s, which
    /// would hold one of the cooperative pool's few threads.
    private static func verify(_ password: String, against hash: String) async -> Bool {
        await offPool { PasswordHash.verify(password, against: hash) }
    }

    /// `body`'s result, computed on a Dispatch thread (work that blocks).
    private static func offPool<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(returning: body()) }
        }
    }

    private func makeSession(for owner: OwnerAccount, address: String, at moment: Date) -> SignInOutcome {
        guard let hash = currentHash() else { return .busy(retryAfter: Self.storageRetry) }
        let session = NewSession(
            cookieValue: RandomToken.make(), csrfToken: RandomToken.make(),
            expiresAt: moment + policy.sessionLifetime.interval)
        do {
            try records.createSession(
                idHash: hash.digest(session.cookieValue), userID: owner.id, csrfToken: session.csrfToken,
                at: moment, expiresAt: session.expiresAt, address: address)
        } catch {
            logger.error("sign-in from \(address): the session could not be stored: \(error.message)")
            return .busy(retryAfter: Self.storageRetry)
        }
        logger.notice("sign-in of \(owner.name) from \(address)")
        inBackground { records throws(StorageError) in try records.deleteExpiredSessions(before: moment) }
        return .signedIn(session)
    }

    // MARK: Sessions

    /// The session `cookieValue` belongs to, nil when none (never made, signed out, expired,
    /// or ended by a new password). Using a session moves its end to
    /// ``OwnerPolicy/sessionLifetime`` from now (written at most once per touch interval).
    public func session(cookieValue: String) -> ActiveSession? {
        guard RandomToken.hasTokenForm(cookieValue), let hash = currentHash() else { return nil }
        let idHash = hash.digest(cookieValue)
        let stored: StoredSession
        do {
            guard let found = try records.session(idHash: idHash) else { return nil }
            stored = found
        } catch {
            logger.error("owner: reading a session failed: \(error.message)")
            return nil
        }
        let moment = now()
        guard stored.expiresAt > moment else {
            inBackground { records throws(StorageError) in try records.deleteSession(idHash: idHash) }
            return nil
        }
        var expiresAt = stored.expiresAt
        if moment.timeIntervalSince(stored.lastSeenAt) >= policy.sessionTouchInterval.interval {
            let moved = moment + policy.sessionLifetime.interval
            expiresAt = moved
            touch(idHash) { records throws(StorageError) in
                try records.touchSession(idHash: idHash, at: moment, expiresAt: moved)
            }
        }
        return ActiveSession(userName: stored.userName, csrfToken: stored.csrfToken, expiresAt: expiresAt)
    }

    /// Whether `presented` (a form's `csrf` field or the `X-CSRF-Token` header) is `session`'s
    /// CSRF token, compared in constant time.
    public func csrfMatches(_ session: ActiveSession, presented: String) -> Bool {
        !presented.isEmpty && ConstantTime.equal(session.csrfToken, presented)
    }

    /// Deletes the session of `cookieValue` (signing out); nothing when there is none.
    public func signOut(cookieValue: String) {
        guard RandomToken.hasTokenForm(cookieValue), let hash = currentHash() else { return }
        do {
            try records.deleteSession(idHash: hash.digest(cookieValue))
        } catch {
            logger.error("sign-out: \(error.message)")
        }
    }

    /// Deletes every session: every browser is signed out (app tokens stay).
    public func signOutEverywhere() {
        do {
            let ended = try records.deleteAllSessions()
            logger.notice("signed out everywhere: \(ended) sessions ended")
        } catch {
            logger.error("sign-out everywhere: \(error.message)")
        }
    }

    // MARK: The password

    /// The fewest characters a password may have.
    public static let minimumPasswordLength = 10

    /// Sets the owner's password (making the owner on first use) as a new Argon2id hash, and
    /// ends every session: each browser signs in again. Returns how many sessions ended.
    /// Blocks ~0.1 s (the hash): for the command line, not a request thread.
    @discardableResult
    public func setPassword(_ password: String) throws(StorageError) -> Int {
        guard password.count >= Self.minimumPasswordLength else {
            throw StorageError("the password needs at least \(Self.minimumPasswordLength) characters")
        }
        let hash: String
        do {
            hash = try PasswordHash.make(password)
        } catch {
            throw StorageError(error.message)
        }
        return try records.setPassword(hash: hash, at: now()).sessionsEnded
    }

    // MARK: Tokens

    /// The name of the app token `bearer` (an `Authorization: Bearer` value), nil when it is
    /// no token of this server or was revoked.
    public func token(bearer: String) -> String? {
        guard RandomToken.hasTokenForm(bearer), let hash = currentHash() else { return nil }
        let digest = hash.digest(bearer)
        let stored: StoredToken
        do {
            guard let found = try records.token(hash: digest) else { return nil }
            stored = found
        } catch {
            logger.error("owner: reading a token failed: \(error.message)")
            return nil
        }
        let moment = now()
        if stored.lastUsedAt.map({ moment.timeIntervalSince($0) >= policy.tokenTouchInterval.interval })
            ?? true
        {
            touch(digest) { records throws(StorageError) in try records.touchToken(hash: digest, at: moment) }
        }
        return stored.name
    }

    /// Makes a new app token named `name` and stores its hash; returns the token, the only
    /// time it is ever seen. Throws when there is no owner or a token of that name exists.
    public func createToken(name: String) throws(StorageError) -> String {
        let hash = try loadedHash()
        let token = RandomToken.make()
        try records.createToken(name: name, hash: hash.digest(token), at: now())
        return token
    }

    // MARK: Background writes

    /// Waits for the background writes queued so far (tests, and a server stopping).
    public func flush() {
        writes.sync {}
    }

    private func touch(
        _ hash: [UInt8], _ write: @escaping @Sendable (OwnerRecords) throws(StorageError) -> Void
    ) {
        guard touching.withLock({ $0.insert(hash).inserted }) else { return }
        inBackground { [self] records throws(StorageError) in
            defer { touching.withLock { _ = $0.remove(hash) } }
            try write(records)
        }
    }

    private func inBackground(_ write: @escaping @Sendable (OwnerRecords) throws(StorageError) -> Void) {
        writes.async { [records, logger] in
            do {
                try write(records)
            } catch {
                logger.warning("owner: a background write failed: \(error)")
            }
        }
    }

    /// The keyed hash, its key read from the file (or made and stored there) on first use;
    /// nil (logged) when the file cannot give it.
    private func currentHash() -> KeyedHash? {
        do {
            return try loadedHash()
        } catch {
            logger.error("owner: \(error)")
            return nil
        }
    }

    private func loadedHash() throws(StorageError) -> KeyedHash {
        try keyedHash.withLock { cached throws(StorageError) -> KeyedHash in
            if let cached { return cached }
            guard let loaded = KeyedHash(key: try records.hashKey(orMake: KeyedHash.newKey)) else {
                throw StorageError("database \(records.path): the owner's key has the wrong length")
            }
            cached = loaded
            return loaded
        }
    }
}
