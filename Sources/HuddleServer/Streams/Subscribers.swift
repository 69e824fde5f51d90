import HuddleCore
import NIOCore
import Synchronization

/// The live streams of one device: its center's streams and its groups' streams, in one table.
///
/// The device's session adds to it and publishes to it; a stream leaves it when its client goes away,
/// from any task, which is why the table has a lock of its own. Nothing is rendered under that lock.
///
/// Streams are kept by topic, and each topic keeps its events once, in order, for all of its streams: a
/// publish appends one event per topic, however many streams follow it, and each stream keeps only its
/// position. The publisher never waits for a stream, so a slow client cannot slow a delivery. A stream takes
/// everything after its position at once (a client that fell behind catches up in one write), and streams
/// at the same position, as those paced by one clock are, share one joined buffer instead of each copying
/// the same events. A stream further behind than its byte limit is ended: its client reconnects with
/// `Last-Event-ID` and resumes from a fresh rendering.
final class Subscribers: Sendable {
    /// What a stream follows.
    enum Topic: Sendable, Hashable {
        /// The whole center, for a view.
        case center(CenterView)
        /// One group, as a notification content extension sees it, for a viewer.
        case group(GroupID, Viewer)
    }

    /// One stream's place among its topic's events.
    private struct Reader {
        let topic: Topic
        /// How many bytes may wait for the stream; one event may always wait, however large.
        let byteLimit: Int
        /// The stream's own first event (the rendering it starts from), taken before the topic's events.
        var prelude: ByteBuffer?
        /// The sequence number of the next topic event the stream takes.
        var position: Int
        /// How many bytes the topic had appended before `position`.
        var bytesBeforePosition: Int
        /// Once the stream has ended: the topic events before this number are still taken, then nothing.
        var end: Int?
        /// The stream's writer, waiting for an event.
        var waiter: CheckedContinuation<ByteBuffer?, Never>?
    }

    /// A topic's events from the oldest that one of its streams has still to take. Events that every stream
    /// has taken are forgotten once the kept bytes pass the smallest byte limit, so a topic keeps at most
    /// about that much, as much as one stream's client may have waiting.
    private struct TopicLog {
        /// `events[i]` has sequence number `firstSequence + i`.
        var events: [ByteBuffer] = []
        var firstSequence = 0
        var bytesBeforeFirst = 0
        var appendedBytes = 0
        var readers: Set<Int> = []
        /// Readers that have not ended; the topic is published to while there is one.
        var liveReaders = 0
        /// Readers whose writer waits (they have taken everything).
        var waiting: [Int] = []
        /// The smallest byte limit of the topic's readers: until the kept events pass it, no reader can be
        /// too far behind, and nothing need be checked.
        var smallestByteLimit = Int.max
        /// The last join of several events, kept for the streams at the same position.
        var lastJoin: (from: Int, to: Int, bytes: ByteBuffer)?

        var endSequence: Int { firstSequence + events.count }
        var keptBytes: Int { appendedBytes - bytesBeforeFirst }

        /// The events from `from` up to `to`, in one buffer.
        mutating func joined(from: Int, to: Int) -> ByteBuffer {
            if let lastJoin, lastJoin.from == from, lastJoin.to == to { return lastJoin.bytes }
            let slice = events[(from - firstSequence)..<(to - firstSequence)]
            guard slice.count > 1 else { return slice[slice.startIndex] }
            var bytes = ByteBufferAllocator().buffer(capacity: slice.reduce(0) { $0 + $1.readableBytes })
            for var event in slice { bytes.writeBuffer(&event) }
            lastJoin = (from, to, bytes)
            return bytes
        }

        /// Forgets the events before `sequence`.
        mutating func dropEvents(before sequence: Int) {
            let count = sequence - firstSequence
            guard count > 0 else { return }
            bytesBeforeFirst += events[..<count].reduce(0) { $0 + $1.readableBytes }
            events.removeFirst(count)
            firstSequence = sequence
            if let lastJoin, lastJoin.from < sequence { self.lastJoin = nil }
        }
    }

    private struct State {
        var logs: [Topic: TopicLog] = [:]
        var readers: [Int: Reader] = [:]
        var liveReaders = 0
        var nextID = 0

        /// Ends a reader: it takes the topic's events before `end`, then nothing.
        /// - Returns: its waiting writer, to be resumed with `nil` once the lock is released.
        mutating func endReader(_ id: Int, at end: Int) -> CheckedContinuation<ByteBuffer?, Never>? {
            guard var reader = readers[id], reader.end == nil else { return nil }
            reader.end = end
            let waiter = reader.waiter
            reader.waiter = nil
            readers[id] = reader
            liveReaders -= 1
            logs[reader.topic]!.liveReaders -= 1
            logs[reader.topic]!.waiting.removeAll { $0 == id }
            ServerMetrics.streamClosed()
            return waiter
        }

        /// What a reader takes now: its prelude and the topic's events from its position, in one buffer.
        /// `.some(nil)` when it has ended (or left the table) and taken everything; `nil` when it has to wait.
        mutating func take(_ id: Int) -> ByteBuffer?? {
            guard var reader = readers[id] else { return .some(nil) }
            var taken = reader.prelude
            reader.prelude = nil
            let end = reader.end ?? logs[reader.topic]!.endSequence
            if reader.position < end {
                var events = logs[reader.topic]!.joined(from: reader.position, to: end)
                reader.position = end
                reader.bytesBeforePosition += events.readableBytes
                if taken == nil { taken = events } else { taken!.writeBuffer(&events) }
            }
            readers[id] = reader
            if let taken { return .some(taken) }
            return reader.end == nil ? nil : .some(nil)
        }

        /// Appends a topic's event; its waiting writers get it at once.
        mutating func append(_ event: ByteBuffer, to topic: Topic) -> [CheckedContinuation<ByteBuffer?, Never>] {
            // A topic whose streams have all ended keeps what they still take, and nothing new.
            guard let liveReaders = logs[topic]?.liveReaders, liveReaders > 0 else { return [] }
            let waiting = logs[topic]!.waiting
            logs[topic]!.events.append(event)
            logs[topic]!.appendedBytes += event.readableBytes
            logs[topic]!.waiting = []
            let waiters = waiting.compactMap { id -> CheckedContinuation<ByteBuffer?, Never>? in
                readers[id]!.position += 1
                readers[id]!.bytesBeforePosition += event.readableBytes
                defer { readers[id]!.waiter = nil }
                return readers[id]!.waiter
            }
            if logs[topic]!.keptBytes > logs[topic]!.smallestByteLimit { endReadersTooFarBehind(on: topic) }
            return waiters
        }

        /// Ends the readers with more bytes waiting than their limit (and more than one event), and forgets
        /// the events that every reader has taken.
        private mutating func endReadersTooFarBehind(on topic: Topic) {
            // Not a copy of the log: holding one would make the log's arrays copy themselves when changed.
            let (readerIDs, endSequence, appendedBytes) = (logs[topic]!.readers, logs[topic]!.endSequence, logs[topic]!.appendedBytes)
            var oldestWanted = endSequence
            for id in readerIDs {
                var reader = readers[id]!
                let waitingEvents = (reader.prelude == nil ? 0 : 1) + endSequence - reader.position
                let waitingBytes = (reader.prelude?.readableBytes ?? 0) + appendedBytes - reader.bytesBeforePosition
                if reader.end == nil, waitingEvents > 1, waitingBytes > reader.byteLimit {
                    // It never waits with events waiting, so there is no writer to resume.
                    _ = endReader(id, at: reader.position)
                    reader = readers[id]!
                }
                if reader.position < reader.end ?? endSequence { oldestWanted = min(oldestWanted, reader.position) }
            }
            logs[topic]!.dropEvents(before: oldestWanted)
        }
    }

    private let state = Mutex(State())
    /// Told, under the table's lock, each time a stream starts waiting for its topic's next event: a
    /// caller that must not publish before a stream waits (a test of the waiting path) waits on this.
    private let startedWaiting: @Sendable (Topic) -> Void

    init(startedWaiting: @escaping @Sendable (Topic) -> Void = { _ in }) {
        self.startedWaiting = startedWaiting
    }

    /// Adds a stream at the end of its topic's events; it stays until ``remove(_:)``.
    /// - Parameter prelude: the stream's own first event, before the topic's.
    func add(_ topic: Topic, prelude: ByteBuffer?, byteLimit: Int) -> Int {
        ServerMetrics.streamOpened()
        return state.withLock { state in
            defer { state.nextID += 1 }
            let id = state.nextID
            state.logs[topic, default: TopicLog()].readers.insert(id)
            state.logs[topic]!.liveReaders += 1
            state.logs[topic]!.smallestByteLimit = min(state.logs[topic]!.smallestByteLimit, byteLimit)
            state.readers[id] = Reader(
                topic: topic, byteLimit: byteLimit, prelude: prelude, position: state.logs[topic]!.endSequence,
                bytesBeforePosition: state.logs[topic]!.appendedBytes)
            state.liveReaders += 1
            return id
        }
    }

    /// Removes a stream for good (its response is done with).
    func remove(_ id: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<ByteBuffer?, Never>? in
            let waiter = state.endReader(id, at: 0)
            guard let reader = state.readers.removeValue(forKey: id) else { return waiter }
            state.logs[reader.topic]!.readers.remove(id)
            if state.logs[reader.topic]!.readers.isEmpty { state.logs[reader.topic] = nil }
            return waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Ends a stream where it is: it takes nothing more.
    func end(_ id: Int) {
        let waiter = state.withLock { state in
            state.readers[id].flatMap { state.endReader(id, at: $0.position) }
        }
        waiter?.resume(returning: nil)
    }

    /// What waits for a stream, in one buffer; waits for an event when there is none. `nil` once the stream
    /// has ended and taken what it still had, or when the caller's task is cancelled.
    func next(_ id: Int) async -> ByteBuffer? {
        if let taken = state.withLock({ $0.take(id) }) { return taken }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<ByteBuffer?, Never>) in
                let ready: ByteBuffer?? = state.withLock { state in
                    if let taken = state.take(id) { return taken }
                    if Task.isCancelled { return .some(nil) }
                    state.readers[id]!.waiter = waiter
                    let topic = state.readers[id]!.topic
                    state.logs[topic]!.waiting.append(id)
                    startedWaiting(topic)
                    return nil
                }
                if let ready { waiter.resume(returning: ready) }
            }
        } onCancel: {
            end(id)
        }
    }

    /// The bytes waiting for a stream now (for tests).
    func waitingBytes(_ id: Int) -> Int {
        state.withLock { state in
            guard let reader = state.readers[id] else { return 0 }
            let end = reader.end ?? state.logs[reader.topic]!.endSequence
            let shared = reader.position < end ? state.logs[reader.topic]!.joined(from: reader.position, to: end).readableBytes : 0
            return (reader.prelude?.readableBytes ?? 0) + shared
        }
    }

    /// The bytes of events kept for the streams of every topic (for tests).
    var keptBytes: Int { state.withLock { $0.logs.values.reduce(0) { $0 + $1.keptBytes } } }


    /// The topics that streams follow now.
    var topics: [Topic] {
        state.withLock { state in state.logs.compactMap { $0.value.liveReaders > 0 ? $0.key : nil } }
    }

    /// How many streams are open (not ended).
    var count: Int { state.withLock { $0.liveReaders } }

    var isEmpty: Bool { count == 0 }

    /// Gives every stream of each topic the topic's event, once per topic.
    func publish(_ events: [Topic: ByteBuffer]) {
        guard !events.isEmpty else { return }
        let woken = state.withLock { state in
            events.flatMap { topic, event in state.append(event, to: topic).map { ($0, event) } }
        }
        for (waiter, event) in woken { waiter.resume(returning: event) }
    }

    /// Sends a comment to every stream, so that proxies and clients see the connection alive.
    func heartbeat() {
        publish(Dictionary(uniqueKeysWithValues: topics.map { ($0, ServerSentEvent.heartbeat) }))
    }

    /// Ends every stream (the device was deleted): each takes what was published before, then ends.
    func endAll() {
        let waiters = state.withLock { state in
            Array(state.readers.keys).compactMap { id in state.endReader(id, at: state.logs[state.readers[id]!.topic]!.endSequence) }
        }
        for waiter in waiters { waiter.resume(returning: nil) }
    }
}

/// One open stream, given back to its table when the stream is done with (written to its end, or dropped
/// unwritten).
final class Subscription: Sendable {
    private let id: Int
    private let subscribers: Subscribers

    /// - Parameter prelude: the stream's own first event, before those published to its topic from now on.
    init(topic: Subscribers.Topic, prelude: ByteBuffer?, byteLimit: Int, subscribers: Subscribers) {
        self.subscribers = subscribers
        id = subscribers.add(topic, prelude: prelude, byteLimit: byteLimit)
    }

    deinit {
        subscribers.remove(id)
    }

    /// All that waits, in one buffer (``Subscribers/next(_:)``).
    func next() async -> ByteBuffer? {
        await subscribers.next(id)
    }

    /// Ends the stream where it is: it takes nothing more (``Subscribers/end(_:)``).
    @Sendable func end() {
        subscribers.end(id)
    }

    /// The bytes waiting now (for tests).
    var waitingBytes: Int { subscribers.waitingBytes(id) }

    /// The stream's events as they are to be written: all that waits, in one buffer each time.
    var events: AsyncStream<ByteBuffer> {
        AsyncStream(unfolding: { [self] in await next() })
    }
}
