import HuddleCore
import NIOCore
import Synchronization

/// Who looks at a center, and in which form: streams and reads with equal views share one rendering.
struct CenterView: Sendable, Hashable {
    enum Format: Sendable, Hashable {
        /// The rendered center's JSON (scenario.md).
        case json
        /// The web page's HTML.
        case html
    }

    var viewer: Viewer
    var format: Format
    /// At most this many notifications of each group (``RenderOptions/notificationLimit``).
    var notificationLimit: Int?

    var options: RenderOptions { RenderOptions(notificationLimit: notificationLimit) }
}

/// The live streams of one device: its center's streams and its groups' streams, in one table.
///
/// The device's session adds to it and publishes to it; a stream leaves it when its client goes away,
/// from any task, which is why the table has a lock of its own. Nothing is rendered under that lock.
final class Subscribers: Sendable {
    /// What a stream follows.
    enum Topic: Sendable, Hashable {
        /// The whole center, for a view.
        case center(CenterView)
        /// One group, as a notification content extension sees it, for a viewer.
        case group(GroupID, Viewer)
    }

    struct Subscriber: Sendable {
        var topic: Topic
        var queue: EventQueue
    }

    private struct State {
        var table: [Int: Subscriber] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    /// Adds a stream; it stays until ``remove(_:)``, or until its queue ends on a publish.
    func add(_ topic: Topic, queue: EventQueue) -> Int {
        ServerMetrics.streamOpened()
        return state.withLock { state in
            defer { state.nextID += 1 }
            state.table[state.nextID] = Subscriber(topic: topic, queue: queue)
            return state.nextID
        }
    }

    func remove(_ id: Int) {
        let removed = state.withLock { $0.table.removeValue(forKey: id) }
        if let removed {
            ServerMetrics.streamClosed()
            removed.queue.end()
        }
    }

    /// The streams open now.
    var all: [(id: Int, subscriber: Subscriber)] {
        state.withLock { state in state.table.map { ($0.key, $0.value) } }
    }

    var count: Int { state.withLock { $0.table.count } }

    var isEmpty: Bool { state.withLock { $0.table.isEmpty } }

    /// Gives each of the `open` streams (from ``all``) its event by topic; a stream whose client is too far
    /// behind is closed.
    func publish(_ events: [Topic: ByteBuffer], to open: [(id: Int, subscriber: Subscriber)]) {
        guard !events.isEmpty else { return }
        var behind: [Int] = []
        for (id, subscriber) in open {
            guard let event = events[subscriber.topic] else { continue }
            if !subscriber.queue.add(event) { behind.append(id) }
        }
        for id in behind { remove(id) }
    }

    /// Sends a comment to every stream, so that proxies and clients see the connection alive.
    func heartbeat() {
        let comment = ByteBuffer(string: ": heartbeat\n\n")
        var behind: [Int] = []
        for (id, subscriber) in all where !subscriber.queue.add(comment) { behind.append(id) }
        for id in behind { remove(id) }
    }

    /// Ends every stream (the device was deleted).
    func endAll() {
        for (id, _) in all { remove(id) }
    }
}

/// One open stream: its queue, and its place in the table, given back when the stream is done with
/// (written to its end, or dropped unwritten).
final class Subscription: Sendable {
    let queue: EventQueue
    private let id: Int
    private let subscribers: Subscribers

    init(topic: Subscribers.Topic, queue: EventQueue, subscribers: Subscribers) {
        self.queue = queue
        self.subscribers = subscribers
        id = subscribers.add(topic, queue: queue)
    }

    deinit {
        subscribers.remove(id)
    }

    /// The stream's events as they are to be written: all that waits, in one buffer each time.
    var events: AsyncStream<ByteBuffer> {
        AsyncStream(unfolding: { [queue] in await queue.next() })
    }
}
