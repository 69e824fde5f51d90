import Dispatch
import Foundation
import HuddleCore
import NIOCore
import NIOPosix
@testable import HuddleServer
import Testing

/// A push's task runs on its connection's event loop: its own code, and what follows a call to an actor or a
/// wait that another thread ends (as a commit does).
@Suite(.timeLimit(.minutes(1))) struct EventLoopTaskExecutorTests {
    /// A default actor, as the device sessions are: no executor of its own.
    actor Counter {
        private(set) var count = 0

        func add() {
            count += 1
        }
    }

    @Test func aPreferringTaskRunsOnTheEventLoopAfterActorsAndWaits() async throws {
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let counter = Counter()
        let places = await Task(executorPreference: EventLoopTaskExecutor(eventLoop)) {
            var places = [eventLoop.inEventLoop]
            await counter.add()
            places.append(eventLoop.inEventLoop)
            // Resumed from another thread, as a push is when its commit ends.
            await withCheckedContinuation { continuation in DispatchQueue.global().async { continuation.resume() } }
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

    @Test func tasksOfTwoLoopsCallingOneActorAtOnceAllLandAndComeBack() async {
        // An actor's calls may run on whichever thread drains it; every call lands, and each task goes on on
        // its own loop.
        let loops = [MultiThreadedEventLoopGroup.singleton.next(), MultiThreadedEventLoopGroup.singleton.next()]
        let counter = Counter()
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<200 {
                let eventLoop = loops[index % 2]
                group.addTask(executorPreference: EventLoopTaskExecutor(eventLoop)) {
                    await counter.add()
                    return eventLoop.inEventLoop
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 200)
        #expect(results.allSatisfy { $0 })
        #expect(await counter.count == 200)
    }

    /// A watched device's write leaves the push's event loop for Swift's pool (its session renders the change for
    /// the viewers there), and the push's task comes back to its loop after it; an unwatched device's write stays.
    @Test func aWatchedDevicesWriteRunsOffThePushesEventLoop() async throws {
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let store = InMemoryNotificationStore()
        try await DeviceSessionTests.prepare(store)
        let session = try #require(try await DeviceSession.load(token: DeviceSessionTests.token, store: store))
        #expect(try await Self.deliver("a", to: session, from: eventLoop) == [true, true])
        let stream = await session.subscribe(CenterView(viewer: Viewer(), format: .html), resumingAfter: nil, bufferBytes: 1 << 20)
        #expect(session.isWatched)
        #expect(try await Self.deliver("b", to: session, from: eventLoop) == [false, true])
        // The viewer got the change the pool rendered.
        var events = CenterPublisherTests.Events(stream)
        #expect(try await events.require().name == "center")
        let change = try await events.require()
        #expect(change.name == "change" && change.data["delivered"] == ["b"])
    }

    /// Delivers a notification from a task on `eventLoop`, as a push does: whether the write ran on the loop, and
    /// whether the task was back on it after.
    private static func deliver(_ id: String, to session: DeviceSession, from eventLoop: any EventLoop) async throws -> [Bool] {
        try await Task(executorPreference: EventLoopTaskExecutor(eventLoop)) {
            let ranOnLoop = try await session.onPoolWhenWatched {
                _ = try await session.deliver(DeviceSessionTests.request(id, thread: "t", sender: "Teja"), app: DeviceSessionTests.app, at: Date())
                return eventLoop.inEventLoop
            }
            return [ranOnLoop, eventLoop.inEventLoop]
        }.value
    }
}
