import Foundation

/// A NUL-terminated copy of a fixed string, made once, for names handed to libmicrohttpd on
/// every request.
///
/// Swift passes a `String` argument as `const char *` without copying only when the string
/// keeps its bytes on the heap; short strings (up to 15 bytes, such as `X-Request-Id`) are
/// stored inline and get copied into a new array on every call.
struct CStringConstant: @unchecked Sendable {
    /// Never freed: constants live as long as the process.
    let pointer: UnsafePointer<CChar>
    /// The bytes before the NUL.
    let length: Int
    /// The same text as a Swift string (a literal's: retaining it costs nothing).
    let text: String

    init(_ text: StaticString) {
        self.text = text.description
        length = text.utf8CodeUnitCount
        pointer = UnsafePointer(strdup(self.text)!)
    }
}
