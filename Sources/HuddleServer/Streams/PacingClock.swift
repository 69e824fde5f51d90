import Synchronization

/// One clock for the pacing of every stream: a stream that has written waits for the next tick, and a
/// single task ticks while any stream waits. A timer per stream per write cost more than the writes
/// themselves with hundreds of streams (a dispatch timer armed and fired each time).
final class PacingClock: Sendable {
    let interval: Duration
    private let state = Mutex(State())

    private struct State {
        var waiting: [CheckedContinuation<Void, Never>] = []
        var isTicking = false
    }

    init(interval: Duration) {
        self.interval = interval
    }

    /// Returns at the next tick, at most one interval from now.
    func nextTick() async {
        await withCheckedContinuation { continuation in
            let startsTicking = state.withLock { state in
                state.waiting.append(continuation)
                defer { state.isTicking = true }
                return !state.isTicking
            }
            if startsTicking { Task { await tick() } }
        }
    }

    /// Whether the ticking task runs (for tests).
    var isTicking: Bool { state.withLock { $0.isTicking } }

    /// Ticks until a tick finds nobody waiting.
    private func tick() async {
        while true {
            try? await Task.sleep(for: interval)
            let due = state.withLock { state in
                defer { state.waiting = [] }
                if state.waiting.isEmpty { state.isTicking = false }
                return state.waiting
            }
            guard !due.isEmpty else { return }
            for continuation in due { continuation.resume() }
        }
    }
}
