import Foundation
import Owner
import Storage
import Testing

/// The sign-in's throttles: five failures from one address within 15 minutes shut that address
/// out (even with the right password) while others sign in; a bound on failures from
/// everywhere; at most two Argon2id verifications at once.
@Suite("Sign-in throttles")
struct SignInThrottleTests {
    static func fiveFailures(_ authority: OwnerAuthority, from address: String) async {
        for _ in 0..<5 {
            #expect(await authority.guess(from: address) == .wrongPassword)
        }
    }

    @Test func fiveFailuresThrottleTheAddressEvenForTheRightPassword() async throws {
        let fixture = try OwnerFixture()
        let authority = try fixture.owned()
        await Self.fiveFailures(authority, from: "203.0.113.9")
        #expect(
            await authority.rightPassword(from: "203.0.113.9")
                == .throttled(retryAfter: 900))
        #expect(
            await authority.guess(from: "203.0.113.9")
                == .throttled(retryAfter: 900))
        // The owner elsewhere still gets in.
        #expect(
            await authority.signsIn(from: "198.51.100.7"))
        fixture.advance(600)
        #expect(
            await authority.rightPassword(from: "203.0.113.9")
                == .throttled(retryAfter: 300))
        fixture.advance(300)
        #expect(
            await authority.signsIn(from: "203.0.113.9"))
    }

    @Test func failuresOlderThanTheWindowDoNotCount() async throws {
        let fixture = try OwnerFixture()
        let authority = try fixture.owned()
        for _ in 0..<4 {
            #expect(await authority.guess(from: "192.0.2.1") == .wrongPassword)
        }
        fixture.advance(15 * 60)
        for _ in 0..<4 {
            #expect(await authority.guess(from: "192.0.2.1") == .wrongPassword)
        }
        #expect(
            await authority.signsIn(from: "192.0.2.1"))
    }

    @Test func anIPv6AddressCountsByItsSlash64() async throws {
        let fixture = try OwnerFixture()
        let authority = try fixture.owned()
        for host in 1...5 {
            #expect(
                await authority.guess(from: "2001:db8:1:2::\(host)")
                    == .wrongPassword)
        }
        let neighbour = await authority.rightPassword(from: "2001:db8:1:2:ffff:ffff:ffff:ffff")
        #expect(neighbour == .throttled(retryAfter: 900))
        #expect(
            await authority.signsIn(from: "2001:db8:1:3::1"))
        // An IPv4-mapped address is its IPv4 address.
        await Self.fiveFailures(authority, from: "::ffff:192.0.2.44")
        #expect(
            await authority.rightPassword(from: "192.0.2.44")
                == .throttled(retryAfter: 900))
    }

    @Test func anAttemptRefusedForWantOfASlotDoesNotResetTheCount() async throws {
        let fixture = try OwnerFixture()
        var policy = OwnerPolicy()
        policy.concurrentVerifications = 1
        policy.slotWait = .zero
        let authority = try fixture.owned(policy: policy)
        for _ in 0..<4 {
            #expect(await authority.guess(from: "192.0.2.9") == .wrongPassword)
        }
        // Many at once from elsewhere, and one more from the guesser among them: whatever the
        // guesser got (busy or a fifth failure), its four failures still count.
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<6 {
                group.addTask {
                    _ = await authority.rightPassword(from: "198.51.100.\(index)")
                }
            }
            group.addTask { _ = await authority.guess(from: "192.0.2.9") }
        }
        let next = await authority.guess(from: "192.0.2.9")
        #expect(next == .wrongPassword || next == .throttled(retryAfter: 900))
        #expect(
            await authority.rightPassword(from: "192.0.2.9")
                == .throttled(retryAfter: 900))
    }

    @Test func failuresFromEverywhereAreBoundedToo() async throws {
        let fixture = try OwnerFixture()
        var policy = OwnerPolicy()
        policy.failuresEverywhere = 3
        let authority = try fixture.owned(policy: policy)
        for host in 1...3 {
            #expect(
                await authority.guess(from: "192.0.2.\(host)") == .wrongPassword)
            fixture.advance(10)
        }
        // 30 s after the first failure: 30 s until it leaves the one-minute window.
        #expect(
            await authority.rightPassword(from: "198.51.100.1") == .busy(retryAfter: 30))
        fixture.advance(30)
        #expect(
            await authority.signsIn(from: "198.51.100.1"))
    }

    @Test func atMostTwoVerificationsRunAtOnce() async throws {
        let fixture = try OwnerFixture()
        var policy = OwnerPolicy()
        // Long enough that no attempt gives up on this loaded machine: the bound is what is
        // checked here, not the waiting.
        policy.slotWait = .seconds(120)
        let authority = try fixture.owned(policy: policy)
        let outcomes = await withTaskGroup(of: SignInOutcome.self) { group in
            for index in 0..<8 {
                group.addTask {
                    await authority.signIn(
                        password: index.isMultiple(of: 2) ? OwnerFixture.password : "wrong guess",
                        address: "192.0.2.\(index)")
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { OwnerFixture.signedIn($0) != nil }.count == 4)
        #expect(outcomes.filter { $0 == .wrongPassword }.count == 4)
        #expect(authority.peakVerifications >= 1 && authority.peakVerifications <= 2)
    }

    @Test func waitingTooLongForAVerificationIsBusy() async throws {
        let fixture = try OwnerFixture()
        var policy = OwnerPolicy()
        policy.concurrentVerifications = 1
        policy.slotWait = .zero
        let authority = try fixture.owned(policy: policy)
        // Twelve at once with one slot and no waiting: the first holds the slot ~0.1 s, so some
        // of the others, started together, find it taken.
        let outcomes = await withTaskGroup(of: SignInOutcome.self) { group in
            for index in 0..<12 {
                group.addTask { await authority.rightPassword(from: "192.0.2.\(index)") }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.contains(.busy(retryAfter: 1)))
        #expect(outcomes.contains { OwnerFixture.signedIn($0) != nil })
        #expect(authority.peakVerifications == 1)
    }
}
