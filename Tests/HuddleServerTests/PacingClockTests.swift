@testable import HuddleServer
import HuddleTestSupport
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
        let time = ManualClock()
        let clock = PacingClock(interval: .milliseconds(100), clock: time)
        async let first: Void = clock.nextTick()
        // The ticking task sleeps for one interval; the tick wakes the waiter.
        #expect(await time.sleepers.wait { $0 == 1 })
        time.advance(by: .milliseconds(100))
        await first
        // Nobody waits at the next tick: the task ends instead of sleeping again.
        #expect(await time.sleepers.wait { $0 == 1 })
        time.advance(by: .milliseconds(100))
        #expect(await time.sleepers.wait { $0 == 0 })
        // The next waiter starts it again.
        async let second: Void = clock.nextTick()
        #expect(await time.sleepers.wait { $0 == 1 })
        time.advance(by: .milliseconds(100))
        await second
    }
}
