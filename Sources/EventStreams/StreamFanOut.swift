public import HTTPServer

/// Writes one message to many open streaming responses (server-sent events, say) without
/// holding up the server: a group of streams at a time, each group on one server thread, the
/// next group once libmicrohttpd has taken every byte of the last.
///
/// Why a module of its own: it knows nothing of what the bytes say (the feed's events are
/// FeedWeb's), only how libmicrohttpd's threads serve streams (``ResponseStream/serverThread``),
/// which is generic HTTP streaming; but the server itself never needs it to serve a request, so
/// it stays out of HTTPServer, which is large enough.
public enum StreamFanOut {
    /// Where fan-outs (and the heartbeats of a publisher) run: below the server's threads in CPU
    /// priority, so that a request arriving during a fan-out is not kept waiting by it. One
    /// thread for the whole process.
    public static let executor: any TaskExecutor = BackgroundExecutor(name: "event-fan-out")

    /// Streams of one server thread woken together during a fan-out. Waking resumes suspended
    /// connections, and libmicrohttpd 0.9.75 then walks that thread's whole list of suspended
    /// connections (about 0.1 ms with 2,500 streams on a thread) before it writes the group,
    /// while the other requests of that thread wait. Smaller groups shorten the wait and cost a
    /// walk more each: with 5,000 streams, groups of 12 kept the delivery p99 under 200 ms with
    /// the GET p99 of groups of 8 (bench/EVENTS.md has every size tried).
    public static let defaultBatch = 12
    /// The longest a fan-out waits for one group, a safety net: it waits only for the connections
    /// its writes woke, whose readers libmicrohttpd calls in its next loop.
    public static let defaultBound: Duration = .milliseconds(50)

    /// Writes `bytes` to `streams` a group at a time (see ``schedule(_:batch:)``): the next group
    /// is woken once libmicrohttpd has taken every byte of this one (or after `bound`), so the pace
    /// is the server's own, and while one thread writes a group the other threads serve their
    /// requests undisturbed.
    public static func write(
        _ bytes: [UInt8], to streams: [ResponseStream], batch: Int = defaultBatch,
        bound: Duration = defaultBound
    ) async {
        for group in schedule(streams, batch: batch) {
            await wake(group, with: bytes, bound: bound)
        }
    }

    /// The groups of a fan-out, in order: at most `batch` streams each, all served by one server
    /// thread, taking the threads in turn; every stream once, each thread's in the given order.
    public static func schedule(_ streams: [ResponseStream], batch: Int) -> [ArraySlice<ResponseStream>] {
        var queues = byServerThread(streams)
        var groups: [ArraySlice<ResponseStream>] = []
        while !queues.isEmpty {
            for index in queues.indices {
                groups.append(queues[index].prefix(batch))
                queues[index] = queues[index].dropFirst(batch)
            }
            queues.removeAll { $0.isEmpty }
        }
        return groups
    }

    /// The streams split by the server thread that serves them, each part in the given order
    /// (streams not read yet form a part of their own).
    public static func byServerThread(_ streams: [ResponseStream]) -> [ArraySlice<ResponseStream>] {
        var partOfThread: [UInt?: Int] = [:]
        var parts: [[ResponseStream]] = []
        for stream in streams {
            let thread = stream.serverThread
            if let part = partOfThread[thread] {
                parts[part].append(stream)
            } else {
                partOfThread[thread] = parts.count
                parts.append([stream])
            }
        }
        return parts.map { $0[...] }
    }

    /// Writes `bytes` to one group and returns once the server took them all, or after `bound`.
    private static func wake(_ group: ArraySlice<ResponseStream>, with bytes: [UInt8], bound: Duration) async
    {
        let countdown = BatchCountdown(count: group.count)
        for stream in group {
            stream.write(bytes) { countdown.arrive() }
        }
        // Streams written straight to their sockets (ResponseStream) have arrived already.
        guard !countdown.isDone else { return }
        let timer = Task {
            try? await Task.sleep(for: bound)
            countdown.expire()
        }
        await countdown.wait()
        timer.cancel()
    }
}
