import FeedParsing
import Foundation
import HTTPClient

// feed-parse-bench FILE [COUNT] [CONTENT-TYPE]: parses FILE with FeedDocument.read COUNT times
// (default 3) and prints the CPU time of each parse on this thread, for profiling under
// callgrind (`valgrind --tool=callgrind .build/release/feed-parse-bench big.xml 1`); the bench
// figure itself (bytes to published snapshot, in a server) is bench/feedparse.py's.

func threadCPUSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

let arguments = CommandLine.arguments
guard arguments.count >= 2, let data = FileManager.default.contents(atPath: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: feed-parse-bench FILE [COUNT] [CONTENT-TYPE]\n".utf8))
    exit(2)
}
let count = arguments.count > 2 ? Int(arguments[2]) ?? 3 : 3
let contentType = arguments.count > 3 ? arguments[3] : "application/rss+xml"
let base = URL(string: "https://news.example.org/feed.xml")!
for _ in 0..<count {
    let start = threadCPUSeconds()
    do {
        let reading = try FeedDocument.read(data, contentType: contentType, base: base)
        let cpu = threadCPUSeconds() - start
        print(String(format: "%.1f ms CPU, %d entries", cpu * 1000, reading.entries.count))
    } catch {
        print("error: \(error.message)")
        exit(1)
    }
}
