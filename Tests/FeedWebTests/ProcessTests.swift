import Foundation
import HTTPServer
import Logging
import Synchronization
import TestSupport
import Testing

/// The `pullrefresh` executable as a user runs it: flags, errors, signals, `render`.
@Suite("The pullrefresh command", .serialized)
struct ProcessTests {
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["PULLREFRESH_BIN"] { return path }
        let sibling = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("pullrefresh")
        if FileManager.default.isExecutableFile(atPath: sibling.path) { return sibling.path }
        return Fixtures.repositoryRoot.appendingPathComponent(".build/debug/pullrefresh").path
    }

    struct Finished {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs to completion (bounded) with optional stdin.
    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:])
        async throws
        -> Finished
    {
        try await RawConnection.offPool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
            process.currentDirectoryURL = Fixtures.repositoryRoot
            var env = ProcessInfo.processInfo.environment
            env.removeValue(forKey: "PORT")
            env.merge(environment) { $1 }
            process.environment = env
            let out = Pipe()
            let err = Pipe()
            let input = Pipe()
            process.standardOutput = out
            process.standardError = err
            process.standardInput = input
            try process.run()
            if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
            try input.fileHandleForWriting.close()
            let deadline = Date().addingTimeInterval(20)
            while process.isRunning, Date() < deadline { usleep(10_000) }
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            return Finished(
                status: process.terminationStatus,
                stdout: String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
                stderr: String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
    }

    /// A running server and the port it printed.
    final class Running: @unchecked Sendable {
        let process = Process()
        let output = Pipe()
        var port = 0

        /// Starts the binary; its stderr goes to `stderr` when given, else nowhere.
        init(_ arguments: [String], stderr: URL? = nil) throws {
            process.executableURL = URL(fileURLWithPath: ProcessTests.binary)
            process.arguments = ["--port", "0"] + arguments
            process.currentDirectoryURL = Fixtures.repositoryRoot
            process.standardOutput = output
            if let stderr {
                _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
                process.standardError = try FileHandle(forWritingTo: stderr)
            } else {
                process.standardError = FileHandle.nullDevice
            }
            try process.run()
            var line = Data()
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline {
                let byte = output.fileHandleForReading.readData(ofLength: 1)
                if byte.isEmpty || byte == Data("\n".utf8) { break }
                line.append(byte)
            }
            let text = String(decoding: line, as: UTF8.self)
            guard text.hasPrefix("pullrefresh listening on http://127.0.0.1:"),
                let port = Int(text.split(separator: ":").last ?? "")
            else {
                process.terminate()
                throw RawError.io("no startup line: \(text)")
            }
            self.port = port
        }

        func stop() -> Int32 {
            if process.isRunning { kill(process.processIdentifier, SIGTERM) }
            let deadline = Date().addingTimeInterval(20)
            while process.isRunning, Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    @Test func sigtermWithPendingRefreshesAnswersEveryoneAndExitsZero() async throws {
        let server = try await RawConnection.offPool { try Running(["--quiet", "--reload-delay", "2s"]) }
        let port = server.port
        let connections = try (0..<20).map { _ in try RawConnection(port: port, timeoutSeconds: 20) }
        for connection in connections {
            try connection.send("POST /api/refresh?since=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        }
        // The reload sleeps 2 s. SIGTERM once the server holds all 20 (a POST read after SIGTERM
        // would rightly get 503) and none has finished: seen in one /metrics answer, rather than
        // after a pause that a busy machine may stretch past the reload.
        let pending = try await RawConnection.offPool {
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                let connection = try RawConnection(port: port)
                try connection.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
                let text = try connection.readResponse().text
                if text.contains("\npullrefresh_refresh_waiters 20\n") { return text }
                usleep(5_000)
            }
            return ""
        }
        #expect(pending.contains("\npullrefresh_feed_version 1\n"))
        #expect(pending.contains("\npullrefresh_refresh_waiters 20\n"))
        let status = try await RawConnection.offPool { server.stop() }
        #expect(status == 0)
        var versions: Set<String> = []
        for connection in connections {
            let response = try await RawConnection.offPool { try connection.readResponse() }
            #expect(response.status == 200)
            let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            #expect(json?["version"] as? Int == 2)
            versions.insert(response.header("X-Feed-Version") ?? "")
        }
        #expect(versions == ["2"])
    }

    @Test func startsPrintsTheAddressAndServesThePage() async throws {
        let server = try await RawConnection.offPool { try Running(["--quiet", "--seed", "3"]) }
        let page = try await RawConnection.exchange(port: server.port, ["GET / HTTP/1.1\r\nHost: x\r\n\r\n"])[
            0]
        #expect(page.status == 200)
        #expect(page.text.contains("data-ptr-list"))
        #expect(try await RawConnection.offPool { server.stop() } == 0)
    }

    /// A server whose `/feed.xml` is an RSS document listing `item(1)`…`item(n)` on its n-th fetch,
    /// and that feed's URL.
    static func rssUpstream(item: @escaping @Sendable (Int) -> String) throws -> (Server, String) {
        let fetches = Atomic<Int>(0)
        var router = Router(logger: Logger(quiet: true))
        router.get("/feed.xml") { _ in
            let count = fetches.add(1, ordering: .relaxed).newValue
            let items = (1...count).map(item)
            return Response(
                headers: ["Content-Type": "application/rss+xml"],
                body: Array("<rss version=\"2.0\"><channel>\(items.joined())</channel></rss>".utf8))
        }
        var options = ServerOptions()
        options.port = 0
        let upstream = try Server(router: router, options: options, logger: Logger(quiet: true))
        return (upstream, "http://127.0.0.1:\(upstream.port)/feed.xml")
    }

    /// `pullrefresh --source http://127.0.0.1:PORT/feed.xml` serves that feed; each pull fetches it.
    @Test func servesAnRSSSourceAndPullsFetchIt() async throws {
        let (upstream, feed) = try Self.rssUpstream {
            "<item><title>Entry \($0) &amp; more</title><link>/e/\($0)</link><guid>g\($0)</guid></item>"
        }
        let server = try await RawConnection.offPool { try Running(["--quiet", "--source", feed]) }
        let responses = try await RawConnection.exchange(
            port: server.port,
            [
                "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
                "POST /api/refresh HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
                "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
            ])
        // A river's ids are `<source key>:<the feed's id>` (12 hex digits of the URL's hash).
        let key = try #require(
            responses[0].text.firstMatch(of: /data-item-id="([0-9a-f]{12}):g1"/).map { String($0.1) })
        #expect(
            responses[0].text.contains(
                "href=\"http://127.0.0.1:\(upstream.port)/e/1\" rel=\"noopener\">Entry 1 &amp; more"))
        let refreshed = try JSONSerialization.jsonObject(with: Data(responses[1].body)) as? [String: Any]
        #expect((refreshed?["added"] as? [[String: Any]])?.map { $0["id"] as? String } == ["\(key):g2"])
        let epoch = try #require(refreshed?["epoch"] as? String)
        #expect(
            responses[2].text
                == "{\"status\":\"ok\",\"version\":2,\"epoch\":\"\(epoch)\",\"source\":{\"ok\":true},"
                + "\"sources\":{\"ok\":1,\"failing\":[]}}"
        )
        #expect(try await RawConnection.offPool { server.stop() } == 0)
        await upstream.shutdown()
    }

    /// An ill-formed feed (a bare `&`) is read, `/healthz` says what was recovered, and the
    /// warning is logged once, not on every pull.
    @Test func aRecoveredFeedIsReportedAndLoggedOnce() async throws {
        let (upstream, feed) = try Self.rssUpstream {
            "<item><title>Fish & chips \($0)</title><guid>g\($0)</guid></item>"
        }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("pullrefresh-\(UUID()).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let server = try await RawConnection.offPool {
            try Running(["--quiet", "--source", feed], stderr: log)
        }
        let responses = try await RawConnection.exchange(
            port: server.port,
            [
                "POST /api/refresh HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
                "POST /api/refresh HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
                "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /api/items HTTP/1.1\r\nHost: x\r\n\r\n",
            ])
        #expect(responses[0].status == 200 && responses[1].status == 200)
        let items = try JSONSerialization.jsonObject(with: Data(responses[3].body)) as? [String: Any]
        let epoch = try #require(items?["epoch"] as? String)
        #expect(
            responses[2].text
                == "{\"status\":\"ok\",\"version\":3,\"epoch\":\"\(epoch)\",\"source\":{\"ok\":true,\"recovered\":\"escaped 3 bare \\\"&\\\"\"},"
                + "\"sources\":{\"ok\":1,\"failing\":[]}}"
        )
        #expect(responses[3].text.contains("\"title\":\"Fish & chips 3\""))
        #expect(try await RawConnection.offPool { server.stop() } == 0)
        await upstream.shutdown()
        let warnings = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").filter {
            $0.contains("not well-formed XML")
        }
        #expect(warnings.count == 1, "\(warnings)")
        #expect(
            warnings.first?.contains(
                "warning: upstream \(feed): the feed is not well-formed XML; escaped 1 bare") == true)
    }

    @Test(arguments: [
        (["--port", "abc"], "--port must be an integer"), (["--port", "70000"], "--port must be an integer"),
        (["--bogus"], "unknown option '--bogus'"),
        (["--reload-delay", "soon"], "--reload-delay must be a duration"),
        (["--max-items", "0"], "--max-items must be"), (["--seed"], "--seed needs a value"),
        (["--polling", "select"], "--polling must be 'poll' or 'epoll'"),
        (["--page-size", "0"], "--page-size must be an integer from 1 to 100"),
        (["--page-size", "101"], "--page-size must be an integer from 1 to 100"),
        (["--page-size", "ten"], "--page-size must be an integer from 1 to 100"),
        (["--source", "ftp://example.org/feed"], "--source must be an http:// or https:// URL"),
        (["--source", "file:///etc/passwd"], "--source must be an http:// or https:// URL"),
        (
            ["--source", "http://127.0.0.1:9/f", "--data", "x.json"],
            "--source and --data cannot be used together"
        ),
        (
            ["--source", "http://127.0.0.1:9/f", "--source-timeout", "0"],
            "--source-timeout must be more than 0"
        ),
        (["--source-connect-timeout", "forever"], "--source-connect-timeout must be a duration"),
        (["--source-max-bytes", "-1"], "--source-max-bytes must be an integer"),
        (["--heartbeat", "10ms"], "--heartbeat must be at least 100ms"),
        (["--heartbeat", "often"], "--heartbeat must be a duration"),
        (["--max-streams", "-1"], "--max-streams must be an integer from 0 to 100000"),
        (["--stored-responses", "lots"], "--stored-responses must be an integer from 0 to 10000"),
    ])
    func badFlagsAreOneLineAndExit2(arguments: [String], message: String) async throws {
        let result = try await Self.run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func badPortEnvironmentIsAnError() async throws {
        let result = try await Self.run([], environment: ["PORT": "http"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("PORT must be an integer"))
    }

    @Test(arguments: [
        (["--templates", "/nonexistent"], "templates folder"),
        (["--public", "/nonexistent"], "public folder"),
        (["--data", "/nonexistent.json"], "data file nonexistent.json"),
    ])
    func badFoldersAndFilesFailAtStartup(arguments: [String], message: String) async throws {
        let result = try await Self.run(arguments + ["--port", "0"])
        #expect(result.status == 1)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func portInUseIsOneLine() async throws {
        let server = try await RawConnection.offPool { try Running(["--quiet"]) }
        let result = try await Self.run(["--port", String(server.port)])
        #expect(result.status == 1)
        #expect(result.stderr.contains("Address already in use"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        _ = try await RawConnection.offPool { server.stop() }
    }

    @Test func helpExitsZero() async throws {
        let result = try await Self.run(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("--reload-delay"))
        #expect(result.stdout.contains("render NAME"))
    }

    @Test func renderWritesExactlyTheTemplateOutput() async throws {
        let result = try await Self.run(
            ["render", "partials/item", "--templates", "Templates", "--data", "-"],
            stdin:
                "{\"id\": 7, \"title\": \"<b>Hi</b>\", \"body\": \"x\", \"createdAt\": \"c\", \"createdAtDisplay\": \"d\"}"
        )
        #expect(result.status == 0, "\(result.stderr)")
        let expected = try String(
            contentsOf: Fixtures.templates.appendingPathComponent("partials/item.mustache"), encoding: .utf8
        )
        .replacingOccurrences(
            of: #"\{\{#source\}\}.*?\{\{/source\}\}"#, with: "", options: .regularExpression
        )
        .replacingOccurrences(of: #"\{\{#url\}\}.*?\{\{/url\}\}"#, with: "", options: .regularExpression)
        // No image: the picture's section (standalone lines) leaves nothing.
        .replacingOccurrences(
            of: #"(?s) *\{\{#thumb\}\}.*?\{\{/thumb\}\}\n"#, with: "",
            options: .regularExpression
        )
        .replacingOccurrences(of: "{{^url}}", with: "").replacingOccurrences(of: "{{/url}}", with: "")
        .replacingOccurrences(of: "{{id}}", with: "7")
        .replacingOccurrences(of: "{{title}}", with: "&lt;b&gt;Hi&lt;/b&gt;")
        .replacingOccurrences(of: "{{body}}", with: "x")
        .replacingOccurrences(of: "{{createdAt}}", with: "c")
        .replacingOccurrences(of: "{{createdAtDisplay}}", with: "d")
        #expect(result.stdout == expected)
        let missing = try await Self.run(["render", "nope", "--templates", "Templates"])
        #expect(missing.status != 0)
        #expect(!missing.stderr.isEmpty)
    }
}
