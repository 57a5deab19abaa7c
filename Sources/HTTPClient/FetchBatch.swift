import Foundation
import Synchronization

/// Many GETs run as one on the ``TransferLoop``: at most `concurrency` at a time, each finished
/// one starting the next from the loop's thread, and every result yielded to one stream with its
/// request's index.
///
/// A river's reload awaits that one stream instead of one task and one continuation per source,
/// and the stream wakes it only when there is work: a body, to be parsed while the other
/// transfers run, is yielded at once (with what was held before it); a `304` or a failure needs
/// nothing until the reload ends, so it is held and yielded with the next body or the last
/// completion. A reload of 100 `304`s then wakes a thread of Swift's pool once, not 100 times.
package final class FetchBatch: Sendable {
    /// One GET of a batch.
    struct Request: Sendable {
        let url: URL
        let options: TransferOptions
    }

    /// One finished GET.
    package struct Completion: Sendable {
        /// The index of its ``Request``.
        package let index: Int
        package let result: Result<FetchResponse, UpstreamError>
        /// From its submission to its end.
        package let duration: Duration

        /// Whether the waiting task has work with it (a body to parse).
        package var bringsBody: Bool {
            if case .success(.body) = result { return true }
            return false
        }
    }

    /// Completions so far, and those not yet yielded.
    private struct Progress {
        var completed = 0
        var held: [Completion] = []
    }

    private let requests: [Request]
    private let limits: FetchLimits
    private let continuation: AsyncStream<Completion>.Continuation
    /// The next request to start: claimed by the first starts and then by each completion.
    private let nextIndex = Atomic<Int>(0)
    private let progress = Mutex(Progress())

    private init(
        _ requests: [Request], limits: FetchLimits, continuation: AsyncStream<Completion>.Continuation
    ) {
        self.requests = requests
        self.limits = limits
        self.continuation = continuation
    }

    /// Starts `requests` (at most `concurrency` at once) and returns their completions, in the
    /// order they finish; the stream ends after the last.
    static func run(_ requests: [Request], limits: FetchLimits, concurrency: Int) -> AsyncStream<Completion> {
        let (stream, continuation) = AsyncStream.makeStream(of: Completion.self)
        guard !requests.isEmpty else {
            continuation.finish()
            return stream
        }
        let batch = FetchBatch(requests, limits: limits, continuation: continuation)
        for _ in 0..<min(max(1, concurrency), requests.count) { batch.startNext() }
        return stream
    }

    /// Starts the next request not yet started, if any. The transfer holds the batch until it
    /// completes, so the batch lives as long as any of its transfers.
    private func startNext() {
        let index = nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue
        guard index < requests.count else { return }
        let request = requests[index]
        let began = ContinuousClock.now
        if let refused = HTTPFetcher.refusal(of: request.url, policy: request.options.addressPolicy) {
            finish(Completion(index: index, result: .failure(refused), duration: .zero))
            return
        }
        TransferLoop.shared.submit(
            Transfer(request.url, request.options, limits) { [self] result in
                finish(Completion(index: index, result: result, duration: .now - began))
            })
    }

    private func finish(_ completion: Completion) {
        // Counted, held and yielded under one lock: a refusal completes on the submitting
        // thread while the loop completes others, and nothing may be yielded after the finish.
        let isLast = progress.withLock { progress in
            progress.completed += 1
            let isLast = progress.completed == requests.count
            guard isLast || completion.bringsBody else {
                progress.held.append(completion)
                return false
            }
            for held in progress.held { continuation.yield(held) }
            progress.held = []
            continuation.yield(completion)
            if isLast { continuation.finish() }
            return isLast
        }
        if !isLast { startNext() }
    }
}
