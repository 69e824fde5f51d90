import NIOCore
import NIOPosix
@testable import HuddleServer
import Testing

/// A push's task runs on its connection's event loop: its own code, the default actors it calls (as the
/// device sessions are), and what follows a wait.
@Suite(.timeLimit(.minutes(1))) struct EventLoopTaskExecutorTests {
    /// A default actor, as the sessions and caches are: no executor of its own.
    actor Counter {
        private(set) var count = 0

        func add(on eventLoop: any EventLoop) -> Bool {
            count += 1
            return eventLoop.inEventLoop
        }
    }

    @Test func aPreferringTaskRunsOnTheEventLoopThroughActorsAndWaits() async throws {
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let counter = Counter()
        let places = await Task(executorPreference: EventLoopTaskExecutor(eventLoop)) {
            var places = [eventLoop.inEventLoop]
            places.append(await counter.add(on: eventLoop))
            try? await Task.sleep(for: .milliseconds(2))
            places.append(eventLoop.inEventLoop)
            return places
        }.value
        #expect(places == [true, true, true])
        #expect(await counter.count == 1)
    }

    @Test func withoutThePreferenceATaskRunsElsewhere() async {
        // The check above can fail: a task without the preference is not on the event loop.
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        #expect(await Task { eventLoop.inEventLoop }.value == false)
    }

    @Test func manyTasksAtOnceAllFinishOnTheirLoops() async {
        // Tasks of two event loops call one actor at once: every call lands, each task on its own loop.
        let loops = [MultiThreadedEventLoopGroup.singleton.next(), MultiThreadedEventLoopGroup.singleton.next()]
        let counter = Counter()
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<200 {
                let eventLoop = loops[index % 2]
                group.addTask(executorPreference: EventLoopTaskExecutor(eventLoop)) {
                    let inside = await counter.add(on: eventLoop)
                    return inside && eventLoop.inEventLoop
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 200 && results.allSatisfy { $0 })
        #expect(await counter.count == 200)
    }
}
