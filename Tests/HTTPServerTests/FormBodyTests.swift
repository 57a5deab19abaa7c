import Testing

@testable import HTTPServer

@Suite("Form bodies: URL-encoded and multipart text fields")
struct FormBodyTests {
    static func request(_ body: String, type: String) -> Request {
        Request(method: "POST", path: "/x", headers: ["Content-Type": type], body: Array(body.utf8))
    }

    @Test func urlEncodedFieldsAreDecodedOnce() {
        let form = FormBody(
            Self.request(
                "password=a+b%25c&next=%2Ffeeds%3Fx%3D1&csrf=", type: "application/x-www-form-urlencoded"))
        #expect(form.value("password") == "a b%c")
        #expect(form.value("next") == "/feeds?x=1")
        #expect(form.value("csrf") == "")
        #expect(form.value("missing") == nil)
    }

    @Test func multipartTextFieldsAreReadAndFilesLeftOut() {
        let body =
            "--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\ntok-123\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.opml\"\r\n"
            + "Content-Type: text/xml\r\n\r\n<opml/>\r\n--XyZ--\r\n"
        let form = FormBody(Self.request(body, type: "multipart/form-data; boundary=\"XyZ\""))
        #expect(form.value("csrf") == "tok-123")
        #expect(form.value("file") == nil)
        #expect(form.fields.count == 1)
    }

    @Test func otherTypesAndMalformedBodiesHaveNoFields() {
        #expect(FormBody(Self.request("csrf=1", type: "text/plain")).fields.isEmpty)
        #expect(FormBody(Self.request("csrf=%zz", type: "application/x-www-form-urlencoded")).fields.isEmpty)
        #expect(
            FormBody(Self.request("no delimiter", type: "multipart/form-data; boundary=q")).fields.isEmpty)
        #expect(FormBody(Self.request("--q\r\nx", type: "multipart/form-data")).fields.isEmpty)
    }
}
