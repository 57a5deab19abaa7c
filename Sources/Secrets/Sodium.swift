import CSodium

/// libsodium, started once: `sodium_init` picks the fastest implementations and seeds the
/// random generator. Every entry point of this module asks for ``ready`` first (a Swift
/// static is initialized once, thread-safely, on first use).
enum Sodium {
    /// Whether `sodium_init` succeeded (0: started now, 1: started before). It fails only when
    /// the system has no source of randomness, and then nothing here may be used.
    static let ready: Bool = sodium_init() >= 0

    /// Stops the process when libsodium cannot start: a server that cannot make random
    /// session ids must not hand out predictable ones.
    static func start() {
        precondition(ready, "libsodium failed to start (sodium_init): no source of randomness")
    }
}
