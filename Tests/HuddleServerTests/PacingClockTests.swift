@testable import HuddleServer
import Testing

/// The one clock that paces every stream's writes: no waiter is left behind, and it stops when nobody waits
/// and starts again for the next one. A lost waiter would hang its stream, so these fail by the time limit.
@Suite(.timeLimit(.minutes(1))) struct PacingClockTests {
    @Test func everyWaiterReturnsAtATick() async {
        let clock = PacingClock(interval: .milliseconds(5))
        let returned = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<500 { group.addTask { await clock.nextTick(); return 1 } }
            return await group.reduce(0, +)
        }
        #expect(returned == 500)
    }

    @Test func theClockStopsWhenNobodyWaitsAndStartsForTheNextWaiter() async throws {
        let clock = PacingClock(interval: .milliseconds(5))
        await clock.nextTick()
        #expect(await Self.within(.seconds(5)) { while clock.isTicking, !Task.isCancelled { await Task.yield() } }, "the clock went on ticking for nobody")
        // Stopped: the next waiter must start it again. (The clock may stop again at once after that tick, so
        // whether it ticks afterwards is not asserted.)
        // A lost waiter hangs here until the suite's time limit fails it (nextTick cannot be cancelled).
        await clock.nextTick()
    }

    /// Whether `work` (which must end when cancelled) finishes within `limit`: the event itself, with a deadline.
    static func within(_ limit: Duration, _ work: @escaping @Sendable () async -> Void) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await work()
                return true
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
