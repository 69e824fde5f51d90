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
/// Streams are kept by topic: a change is encoded once per topic, and publishing it to a topic's streams
/// costs a queue append each, however many streams share the topic.
final class Subscribers: Sendable {
    /// What a stream follows.
    enum Topic: Sendable, Hashable {
        /// The whole center, for a view.
        case center(CenterView)
        /// One group, as a notification content extension sees it, for a viewer.
        case group(GroupID, Viewer)
    }

    private struct State {
        /// Each topic's streams, by id.
        var streams: [Topic: [Int: EventQueue]] = [:]
        var topicOfStream: [Int: Topic] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    /// Adds a stream; it stays until ``remove(_:)``, or until its queue ends on a publish.
    func add(_ topic: Topic, queue: EventQueue) -> Int {
        ServerMetrics.streamOpened()
        return state.withLock { state in
            defer { state.nextID += 1 }
            state.streams[topic, default: [:]][state.nextID] = queue
            state.topicOfStream[state.nextID] = topic
            return state.nextID
        }
    }

    func remove(_ id: Int) {
        let removed = state.withLock { state -> EventQueue? in
            guard let topic = state.topicOfStream.removeValue(forKey: id) else { return nil }
            let queue = state.streams[topic]?.removeValue(forKey: id)
            if state.streams[topic]?.isEmpty == true { state.streams[topic] = nil }
            return queue
        }
        if let removed {
            ServerMetrics.streamClosed()
            removed.end()
        }
    }

    /// The topics that streams follow now.
    var topics: [Topic] {
        state.withLock { Array($0.streams.keys) }
    }

    var count: Int { state.withLock { $0.topicOfStream.count } }

    var isEmpty: Bool { state.withLock { $0.topicOfStream.isEmpty } }

    /// Gives every stream of each topic the topic's event; a stream whose client is too far behind is
    /// closed.
    func publish(_ events: [Topic: ByteBuffer]) {
        guard !events.isEmpty else { return }
        let deliveries = state.withLock { state in
            events.map { topic, event in (event, state.streams[topic] ?? [:]) }
        }
        var behind: [Int] = []
        for (event, streams) in deliveries {
            for (id, queue) in streams where !queue.add(event) { behind.append(id) }
        }
        for id in behind { remove(id) }
    }

    /// Sends a comment to every stream, so that proxies and clients see the connection alive.
    func heartbeat() {
        let comment = ByteBuffer(string: ": heartbeat\n\n")
        publish(Dictionary(uniqueKeysWithValues: topics.map { ($0, comment) }))
    }

    /// Ends every stream (the device was deleted).
    func endAll() {
        for id in state.withLock({ Array($0.topicOfStream.keys) }) { remove(id) }
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
