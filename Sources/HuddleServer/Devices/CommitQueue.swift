import HuddleCore
import Logging
import Synchronization

/// Group commit: deliveries and removals of every device wait here, and one writer commits all that are
/// waiting in one transaction (``NotificationStore/commit(_:)``). A store's commit cost (a WAL sync) is paid
/// once per batch instead of once per push, and batches grow by themselves under load: what arrives while a
/// transaction commits goes in the next one. Nothing waits to fill a batch; a lone push commits at once.
///
/// The queue only commits: it puts each write's changes in its device's ``CommittedChanges`` (in commit
/// order, before any writer of the batch resumes), then resumes the writers. Each device's session applies
/// them itself, in number order, when its writer comes back; the queue never calls into a session.
final class CommitQueue: Sendable {
    /// The most writes in one transaction.
    let maximumBatch: Int
    private let store: any NotificationStore
    /// Where the task that commits batches runs (nil: Swift's pool). The server gives it one of its event loops: a
    /// commit then comes back to a thread already awake instead of waking one of the pool's, the pushes it
    /// resumes on that loop need no wake-up, and an in-memory store's actor runs there too.
    private let writerExecutor: (any TaskExecutor)?
    private let logger: Logger
    /// Told how many writes wait each time that changes (the server shows it as a metric).
    private let reportWaiting: @Sendable (Int) -> Void
    private let state = Mutex(State())

    private struct State {
        var waiting: [Waiting] = []
        var isWriting = false
    }

    private struct Waiting: Sendable {
        var write: NotificationWrite
        var committed: CommittedChanges
        var continuation: CheckedContinuation<[DeviceChange], any Error>
    }

    init(
        store: any NotificationStore, maximumBatch: Int = 256, writerExecutor: (any TaskExecutor)? = nil,
        logger: Logger = Logger(label: "huddle.devices"), reportWaiting: @escaping @Sendable (Int) -> Void = ServerMetrics.writesWaiting
    ) {
        self.store = store
        self.writerExecutor = writerExecutor
        self.maximumBatch = max(1, maximumBatch)
        self.logger = logger
        self.reportWaiting = reportWaiting
    }

    /// Commits a write with those waiting beside it, and puts its changes in `committed` before returning.
    /// - Returns: the write's changes, in number order (none for a removal of nothing).
    /// - Throws: the write's own ``StoreError`` (`.notFound`), or the error that failed its transaction.
    func commit(_ write: NotificationWrite, into committed: CommittedChanges) async throws -> [DeviceChange] {
        try await withCheckedThrowingContinuation { continuation in
            let startsWriter = state.withLock { state in
                state.waiting.append(Waiting(write: write, committed: committed, continuation: continuation))
                // Under the lock, so that the counts are told in the order they happen.
                reportWaiting(state.waiting.count)
                defer { state.isWriting = true }
                return !state.isWriting
            }
            if startsWriter { Task(executorPreference: writerExecutor) { await self.writeWhileWaiting() } }
        }
    }

    /// The writer: commits batches until nothing waits, one after another, so that each device's changes
    /// reach its ``CommittedChanges`` in number order.
    private func writeWhileWaiting() async {
        while true {
            let batch = state.withLock { state -> [Waiting] in
                let batch: [Waiting]
                if state.waiting.count <= maximumBatch {
                    batch = state.waiting
                    state.waiting = []
                } else {
                    batch = Array(state.waiting.prefix(maximumBatch))
                    state.waiting.removeFirst(maximumBatch)
                }
                if batch.isEmpty { state.isWriting = false }
                reportWaiting(state.waiting.count)
                return batch
            }
            guard !batch.isEmpty else { return }
            let results = await commit(batch)
            for (waiting, result) in zip(batch, results) {
                if case .success(let changes) = result { waiting.committed.add(changes) }
            }
            for (waiting, result) in zip(batch, results) { waiting.continuation.resume(with: result) }
        }
    }

    /// Commits a batch in one transaction; when that fails, each write alone, so that one write the store
    /// cannot take does not fail its neighbours.
    private func commit(_ batch: [Waiting]) async -> [Result<[DeviceChange], any Error>] {
        do {
            let results = try await ServerMetrics.timeStore("commit") { try await store.commit(batch.map(\.write)) }
            ServerMetrics.committedBatch(of: batch.count)
            return results.map { $0.mapError { $0 } }
        } catch {
            guard batch.count > 1 else { return [.failure(error)] }
            logger.warning("a batch of \(batch.count) writes failed (\(error)); committing them one by one")
            var results: [Result<[DeviceChange], any Error>] = []
            for waiting in batch { results += await commit([waiting]) }
            return results
        }
    }
}
