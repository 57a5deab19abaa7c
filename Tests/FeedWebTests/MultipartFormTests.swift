import Testing

@testable import FeedWeb

@Suite("MultipartForm: a bounded multipart/form-data reader")
struct MultipartFormTests {
    static let boundary = "----WebKitFormBoundary7MA4YWxkTrZu0gW"

    static func body(_ parts: [(headers: [String], body: String)], boundary: String = boundary) -> [UInt8] {
        var text = ""
        for part in parts {
            text +=
                "--\(boundary)\r\n" + part.headers.map { $0 + "\r\n" }.joined() + "\r\n" + part.body + "\r\n"
        }
        return Array((text + "--\(boundary)--\r\n").utf8)
    }

    @Test func readsFieldsAndFilesAsABrowserSendsThem() throws {
        let body = Self.body([
            (["Content-Disposition: form-data; name=\"csrf\""], "token"),
            (
                [
                    "Content-Disposition: form-data; name=\"opml\"; filename=\"a;b \\\"x\\\".opml\"",
                    "Content-Type: text/x-opml",
                ],
                "<opml>\r\n--not-the-boundary\r\n</opml>"
            ),
            (["Content-Disposition: form-data; name=\"empty\""], ""),
        ])
        let parts = try MultipartForm.parse(body, boundary: Self.boundary, maxPartBytes: 1024)
        #expect(parts.count == 3)
        #expect(parts[0] == MultipartForm.Part(name: "csrf", filename: nil, body: Array("token".utf8)))
        #expect(parts[1].name == "opml")
        #expect(parts[1].filename == "a;b \"x\".opml")
        #expect(String(decoding: parts[1].body, as: UTF8.self) == "<opml>\r\n--not-the-boundary\r\n</opml>")
        #expect(parts[2].body.isEmpty)
    }

    @Test func aPreambleIsIgnored() throws {
        let body =
            Array("This is a preamble.\r\n".utf8)
            + Self.body([(["Content-Disposition: form-data; name=\"a\""], "1")])
        let parts = try MultipartForm.parse(body, boundary: Self.boundary, maxPartBytes: 16)
        #expect(parts.map(\.name) == ["a"])
    }

    @Test func theBoundaryComesFromTheContentType() {
        #expect(MultipartForm.boundary(contentType: "multipart/form-data; boundary=abc") == "abc")
        #expect(
            MultipartForm.boundary(contentType: "multipart/form-data; charset=utf-8; BOUNDARY=\"a b\"")
                == "a b")
        #expect(MultipartForm.boundary(contentType: "multipart/form-data") == nil)
        #expect(MultipartForm.boundary(contentType: "multipart/form-data; boundary=") == nil)
        #expect(
            MultipartForm.boundary(
                contentType: "multipart/form-data; boundary=" + String(repeating: "x", count: 71)) == nil)
    }

    @Test func aPartOverTheLimitIsTooLarge() {
        let body = Self.body([
            (
                ["Content-Disposition: form-data; name=\"opml\"; filename=\"a\""],
                String(repeating: "x", count: 101)
            )
        ])
        #expect(throws: MultipartForm.Failure.tooLarge) {
            try MultipartForm.parse(body, boundary: Self.boundary, maxPartBytes: 100)
        }
        #expect(throws: Never.self) {
            try MultipartForm.parse(body, boundary: Self.boundary, maxPartBytes: 101)
        }
    }

    @Test func tooManyPartsOrHeadersAreRefused() {
        let many = Self.body(
            Array(
                repeating: (["Content-Disposition: form-data; name=\"a\""], "1"),
                count: MultipartForm.maxParts + 1))
        #expect(throws: MultipartForm.Failure.tooLarge) {
            try MultipartForm.parse(many, boundary: Self.boundary, maxPartBytes: 10)
        }
        let longHeader = Self.body([
            (
                [
                    "Content-Disposition: form-data; name=\"a\"",
                    "X-Pad: " + String(repeating: "p", count: MultipartForm.maxHeaderBytes),
                ], "1"
            )
        ])
        #expect(throws: MultipartForm.Failure.tooLarge) {
            try MultipartForm.parse(longHeader, boundary: Self.boundary, maxPartBytes: 10)
        }
    }

    @Test(arguments: [
        "no boundary at all",
        "--\(boundary)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nunterminated",
        "--\(boundary)\r\nContent-Type: text/plain\r\n\r\nno disposition\r\n--\(boundary)--",
        "--\(boundary)\r\nContent-Disposition: attachment; name=\"a\"\r\n\r\n1\r\n--\(boundary)--",
        "--\(boundary)\r\nContent-Disposition: form-data\r\n\r\nno name\r\n--\(boundary)--",
        "--\(boundary)garbage\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--\(boundary)--",
        "preamble without a line end--\(boundary)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--\(boundary)--",
    ])
    func malformedBodiesAreRefused(text: String) {
        #expect(throws: MultipartForm.Failure.malformed) {
            try MultipartForm.parse(Array(text.utf8), boundary: Self.boundary, maxPartBytes: 1024)
        }
    }
}
