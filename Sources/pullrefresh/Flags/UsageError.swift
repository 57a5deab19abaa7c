/// A bad command line: reported as one line, exit status 2.
struct UsageError: Error {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}
