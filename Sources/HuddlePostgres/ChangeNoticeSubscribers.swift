import HuddleCore
import Synchronization

/// The consumers of a store's notices: each one that asks gets a stream of its own with every notice
/// from then on, until the store shuts down.
final class ChangeNoticeSubscribers: Sendable {
    private struct State {
        var streams: [Int: AsyncStream<ChangeNotice>.Continuation] = [:]
        var nextID = 0
        var isFinished = false
    }

    private let state = Mutex(State())

    /// A new stream; already finished when the store has shut down.
    func subscribe() -> AsyncStream<ChangeNotice> {
        let (stream, continuation) = AsyncStream.makeStream(of: ChangeNotice.self)
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.streams.removeValue(forKey: id) }
        }
        let added = state.withLock { state in
            guard !state.isFinished else { return false }
            state.streams[id] = continuation
            return true
        }
        if !added { continuation.finish() }
        return stream
    }

    /// Hands a notice to every stream. Only the store's listening task publishes, so every consumer sees
    /// notices in the order they came.
    func publish(_ notice: ChangeNotice) {
        for continuation in state.withLock({ Array($0.streams.values) }) {
            continuation.yield(notice)
        }
    }

    /// Ends every stream, and those asked for later.
    func finish() {
        let continuations = state.withLock { state in
            state.isFinished = true
            defer { state.streams.removeAll() }
            return Array(state.streams.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
