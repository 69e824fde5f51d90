import Foundation
import GRDB
import Logging
import Synchronization

/// Copies the write-ahead log into the database file on a connection of its own, so that the writer, which
/// every push waits for, never does it. SQLite's own automatic checkpoint runs inside the commit that
/// crosses its threshold, on the writer's thread, and that commit (with every push in its batch) waits for
/// the copy and its fsyncs.
///
/// A passive checkpoint takes no lock that writers need: commits go on while it copies. One runs at a time,
/// then the checkpointer rests for `interval` before the next, so that a page rewritten by many commits in
/// between is copied once; the last commit is always followed by a checkpoint. The writer keeps a far
/// automatic threshold of its own, which bounds the log if checkpoints fail.
final class WALCheckpointer: Sendable {
    private let connection: DatabaseQueue
    private let interval: Duration
    /// What the rest between checkpoints is measured by.
    private let clock: any Clock<Duration>
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var isRunning = false
        /// A commit came after the last checkpoint started.
        var hasNewCommits = false
    }

    init(
        path: String, configuration: GRDB.Configuration, interval: Duration = .milliseconds(200),
        clock: any Clock<Duration> = ContinuousClock(), logger: Logger = Logger(label: "huddle.sqlite")
    ) throws {
        connection = try DatabaseQueue(path: path, configuration: configuration)
        self.interval = interval
        self.clock = clock
        self.logger = logger
    }

    /// Called after a commit: a checkpoint follows, at once when the checkpointer is idle.
    func didCommit() {
        let starts = state.withLock { state in
            state.hasNewCommits = true
            guard !state.isRunning else { return false }
            state.isRunning = true
            return true
        }
        if starts { Task.detached(priority: .utility) { await self.checkpointWhileCommitsCome() } }
    }

    private func checkpointWhileCommitsCome() async {
        // A failure that lasts (a full disk) is logged when it starts and when it ends, not at every retry.
        var isFailing = false
        while state.withLock({ state in
            state.isRunning = state.hasNewCommits
            state.hasNewCommits = false
            return state.isRunning
        }) {
            do {
                _ = try await connection.writeWithoutTransaction { db in try db.checkpoint(.passive) }
                if isFailing { logger.notice("WAL checkpoints work again") }
                isFailing = false
            } catch {
                if !isFailing { logger.warning("WAL checkpoint failed; retrying while commits come: \(error)") }
                isFailing = true
            }
            try? await clock.sleep(for: interval)
        }
    }
}
