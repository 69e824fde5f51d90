import HuddleCore
import Logging
import Synchronization

/// Group commit: deliveries and removals of every device wait here, and one writer commits all that are
/// waiting in one transaction (``NotificationStore/commit(_:)``). A store's commit cost (a WAL sync) is paid
/// once per batch instead of once per push, and batches grow by themselves under load: what arrives while a
/// transaction commits goes in the next one. Nothing waits to fill a batch; a lone push commits at once.
///
/// A writer resumes only after the transaction holding its write has committed and the device's session
/// has applied it, so a 200 still means stored, and a read that follows the answer sees the push. Each
/// session gets its changes of a batch in number order, in one call.
final class CommitQueue: Sendable {
    /// The most writes in one transaction.
    let maximumBatch: Int
    private let store: any NotificationStore
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var waiting: [Waiting] = []
        var isWriting = false
        /// The last committed batch being applied to its sessions; the next waits for it.
        var applying: Task<Void, Never>?
    }

    private struct Waiting: Sendable {
        var write: NotificationWrite
        var session: DeviceSession
        var continuation: CheckedContinuation<DeviceChange?, any Error>
    }

    init(store: any NotificationStore, maximumBatch: Int = 256, logger: Logger = Logger(label: "huddle.devices")) {
        self.store = store
        self.maximumBatch = max(1, maximumBatch)
        self.logger = logger
    }

    /// Commits a write of `session`'s device with those waiting beside it.
    /// - Returns: the committed change (applied to the session), or `nil` when the write changed nothing.
    /// - Throws: the write's own ``StoreError`` (`.notFound`), or the error that failed its transaction.
    func commit(_ write: NotificationWrite, of session: DeviceSession) async throws -> DeviceChange? {
        try await withCheckedThrowingContinuation { continuation in
            let startsWriter = state.withLock { state in
                state.waiting.append(Waiting(write: write, session: session, continuation: continuation))
                guard !state.isWriting else { return false }
                state.isWriting = true
                return true
            }
            if startsWriter { Task { await writeWhileWaiting() } }
        }
    }

    /// How many writes wait for the next transaction.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// The writer: commits batches until nothing waits. While the sessions apply one batch, the next one
    /// commits; batches are applied in commit order (each after the one before), so every session gets its
    /// changes in number order.
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
                return batch
            }
            guard !batch.isEmpty else { return }
            let results = await commit(batch)
            let applying = Task { [previous = state.withLock { $0.applying }] in
                await previous?.value
                await apply(results, of: batch)
            }
            state.withLock { $0.applying = applying }
        }
    }

    /// Commits a batch in one transaction; when that fails, each write alone, so that one write the store
    /// cannot take does not fail its neighbours.
    private func commit(_ batch: [Waiting]) async -> [Result<DeviceChange?, any Error>] {
        do {
            let results = try await ServerMetrics.timeStore("commit") { try await store.commit(batch.map(\.write)) }
            ServerMetrics.committedBatch(of: batch.count)
            return results.map { $0.mapError { $0 } }
        } catch {
            guard batch.count > 1 else { return [.failure(error)] }
            logger.warning("a batch of \(batch.count) writes failed (\(error)); committing them one by one")
            var results: [Result<DeviceChange?, any Error>] = []
            for waiting in batch { results += await commit([waiting]) }
            return results
        }
    }

    /// Hands each session its committed changes, in order, then answers the session's writers.
    private func apply(_ results: [Result<DeviceChange?, any Error>], of batch: [Waiting]) async {
        await withDiscardingTaskGroup { group in
            for positions in Self.positionsByDevice(batch) {
                let session = batch[positions[0]].session
                let changes = positions.compactMap { position in (try? results[position].get()) ?? nil }
                group.addTask { [logger] in
                    do {
                        try await session.applyCommitted(changes)
                    } catch {
                        // Committed all the same: the session catches up with its next change.
                        logger.error("device \(session.token): cannot apply committed changes: \(error)")
                    }
                    for position in positions { batch[position].continuation.resume(with: results[position]) }
                }
            }
        }
    }

    /// The positions of each device's writes in the batch, in order, devices in order of first appearance.
    private static func positionsByDevice(_ batch: [Waiting]) -> [[Int]] {
        var indexOfDevice: [ObjectIdentifier: Int] = [:]
        var positions: [[Int]] = []
        for (position, waiting) in batch.enumerated() {
            let device = ObjectIdentifier(waiting.session)
            if let index = indexOfDevice[device] {
                positions[index].append(position)
            } else {
                indexOfDevice[device] = positions.count
                positions.append([position])
            }
        }
        return positions
    }
}
