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
        while clock.isTicking { try await Task.sleep(for: .milliseconds(5)) }
        // Stopped: the next waiter must start it again, or it waits until the time limit fails the test. (The
        // clock may stop again at once after that tick, so whether it ticks afterwards is not asserted.)
        await clock.nextTick()
    }
}
