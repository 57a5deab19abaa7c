import Testing

@testable import HTTPServer

@Suite("Header lookup")
struct HTTPHeadersTests {
    static let headers: HTTPHeaders = [
        "Host": "x", "Accept-Encoding": "gzip, br", "x-request-id": "abc", "ACCEPT": "*/*",
    ]

    @Test(
        arguments: [
            ("Host", "x"), ("host", "x"), ("HOST", "x"),
            ("Accept-Encoding", "gzip, br"), ("accept-encoding", "gzip, br"),
            ("X-Request-Id", "abc"), ("Accept", "*/*"),
        ])
    func namesMatchInAnyCase(name: String, value: String) {
        #expect(Self.headers[name] == value)
    }

    /// Same length as a present name but another name, or not a letter's other case.
    @Test(arguments: ["Accept-Language", "Accept_Encoding", "Hos", "Hosts", "Ho\u{73}T ", "H0st", "Hôst"])
    func otherNamesAreAbsent(name: String) {
        #expect(Self.headers[name] == nil)
    }

    @Test func onlyLettersDifferByCase() {
        // `[` and `{` differ by 0x20 like letters do, but are not one letter in two cases.
        #expect(!"a[".caseInsensitiveEquals("a{"))
        #expect("Content-Type".caseInsensitiveEquals("cONTENT-tYPE"))
    }
}
