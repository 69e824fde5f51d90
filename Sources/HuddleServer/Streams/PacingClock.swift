import Synchronization

/// One clock for the pacing of every stream: a stream that has written waits for the next tick, and a
/// single task ticks while any stream waits. A timer per stream per write cost more than the writes
/// themselves with hundreds of streams (a dispatch timer armed and fired each time). The task ends at a tick
/// that finds nobody waiting, so it outlives no stream: at shutdown, when the streams end, it ends too.
final class PacingClock: Sendable {
    let interval: Duration
    /// What the ticks are measured by: the real clock in a server, one moved by hand in tests.
    private let clock: any Clock<Duration>
    private let state = Mutex(State())

    private struct State {
        var waiting: [CheckedContinuation<Void, Never>] = []
        var isTicking = false
    }

    init(interval: Duration, clock: any Clock<Duration> = ContinuousClock()) {
        self.interval = interval
        self.clock = clock
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

    /// Ticks until a tick finds nobody waiting.
    private func tick() async {
        while true {
            try? await clock.sleep(for: interval)
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
