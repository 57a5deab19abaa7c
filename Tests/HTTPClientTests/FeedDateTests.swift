import Foundation
import Testing

@testable import HTTPClient

@Suite("Feed dates")
struct FeedDateTests {
    static let reference = 1_055_217_600.0  // 2003-06-10T04:00:00Z

    @Test(arguments: [
        ("Tue, 10 Jun 2003 04:00:00 GMT", reference),
        ("10 Jun 2003 04:00:00 GMT", reference),  // no weekday
        ("Tue, 10 Jun 2003 04:00 GMT", reference),  // no seconds
        ("Tue,  10 June 2003 04:00:00 +0000", reference),  // long month, double space
        ("Tue, 10 Jun 03 04:00:00 UT", reference),  // two-digit year
        ("Tue, 10 Jun 2003 00:00:00 EDT", reference),
        ("Tue, 10 Jun 2003 06:00:00 +02:00", reference),  // colon in the offset
        ("Tue, 10 Jun 2003 04:00:00", reference),  // no zone: UTC
        ("Tuesday, 10 Jun 2003 04:00:00 XYZ", reference),  // unknown zone name: UTC
        ("Jun 10 2003 04:00:00 GMT", reference),  // month first
    ])
    func rfc822Variants(text: String, expected: Double) {
        #expect(FeedDate.rfc822(text)?.timeIntervalSince1970 == expected)
    }

    @Test(arguments: [
        "", "yesterday", "Tue, 32 Jun 2003 04:00:00 GMT", "Tue, 10 Foo 2003", "10 Jun 2003 25:00:00",
    ])
    func rfc822Garbage(text: String) {
        #expect(FeedDate.rfc822(text) == nil)
    }

    @Test(arguments: [
        ("2003-06-10T04:00:00Z", reference), ("2003-06-10t04:00:00z", reference),
        ("2003-06-10T06:00:00+02:00", reference), ("2003-06-09T23:00:00-0500", reference),
        ("2003-06-10T04:00:00.250Z", reference + 0.25), ("2003-06-10T04:00Z", reference),
        ("2003-06-10", reference - 4 * 3600),
    ])
    func rfc3339(text: String, expected: Double) {
        #expect(FeedDate.rfc3339(text)?.timeIntervalSince1970 == expected)
    }

    @Test(arguments: ["2003-06-10T04:00:00", "2003-13-10T04:00:00Z", "2003-06-10T04:00:00+2", "June 2003"])
    func rfc3339Garbage(text: String) {
        #expect(FeedDate.rfc3339(text) == nil)
    }
}
