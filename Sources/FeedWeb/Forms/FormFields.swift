import Foundation
import HTTPServer

/// The fields of a submitted HTML form: `application/x-www-form-urlencoded` (every form of the
/// Feeds page, read by HTTPServer's `FormBody`) or `multipart/form-data` with its files (the OPML
/// upload, read by ``MultipartForm``, bounded).
struct FormFields: Sendable {
    /// Text fields in order; a name may repeat.
    private(set) var fields: [(name: String, value: String)] = []
    /// File parts by field name: their bytes as sent.
    private(set) var files: [String: [UInt8]] = [:]

    /// The first value of `name`, trimmed of surrounding white space; nil when absent.
    func value(_ name: String) -> String? {
        fields.first { $0.name == name }.map { $0.value.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// The first value of `name` when it has something in it.
    func nonEmpty(_ name: String) -> String? {
        value(name).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Parses the body of `request` by its `Content-Type`; anything else is a `415`, a body
    /// that is not a form of that type a `400`.
    init(_ request: Request, maxFileBytes: Int) throws(HTTPError) {
        let type = request.headers["Content-Type"] ?? ""
        let mediaType = type.split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        switch mediaType {
        case "application/x-www-form-urlencoded":
            fields = FormBody(request).fields
        case "multipart/form-data":
            guard let boundary = MultipartForm.boundary(contentType: type) else {
                throw HTTPError.badRequest("The multipart form names no boundary.", code: "bad_form")
            }
            let parts: [MultipartForm.Part]
            do {
                parts = try MultipartForm.parse(
                    request.body, boundary: boundary,
                    maxPartBytes: max(maxFileBytes, FormBody.maxMultipartField))
            } catch .tooLarge {
                throw HTTPError(
                    413, code: "payload_too_large",
                    message: "The file is larger than \(maxFileBytes / 1024) KiB.")
            } catch {
                throw HTTPError.badRequest("The multipart form is malformed.", code: "bad_form")
            }
            for part in parts {
                if part.filename != nil {
                    files[part.name] = part.body
                } else if let text = String(validating: part.body, as: UTF8.self) {
                    fields.append((part.name, text))
                } else {
                    throw HTTPError.badRequest(
                        "The form field '\(part.name)' is not UTF-8.", code: "bad_form")
                }
            }
        default:
            throw HTTPError(
                415, code: "unsupported_media_type",
                message: "Send the form as application/x-www-form-urlencoded or multipart/form-data.")
        }
    }
}
