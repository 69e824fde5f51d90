import Foundation
import HuddleCore
import NIOCore
import Synchronization

/// The live streams of one device's center (Server-Sent Events).
///
/// Each change applied to the center is rendered once per distinct viewer (languages, locked, format)
/// and the same text is sent to every stream of that viewer, named by the change's number, so a client
/// can resume with `Last-Event-ID`. The feed remembers the change that last touched each group, and the
/// groups that went away, so a resuming client gets just the groups that changed since its number; one
/// from before what the feed remembers gets the whole center.
final class CenterFeed: Sendable {
    /// What a stream shows, and from where it resumes.
    struct Subscription: Sendable {
        var view: View
        /// The last change the client has (`Last-Event-ID`); `nil` for a new client.
        var resumingAfter: UInt64?
        /// How many bytes of events may wait for the client; past that the stream is closed (one event
        /// may always wait, however large).
        var bufferBytes = 1 << 20
    }

    /// A stream's events, counting the bytes that wait in its buffer as the client takes them.
    struct Stream: AsyncSequence, Sendable {
        fileprivate let events: AsyncStream<Event>
        fileprivate let waiting: WaitingBytes

        struct AsyncIterator: AsyncIteratorProtocol {
            fileprivate var events: AsyncStream<Event>.AsyncIterator
            fileprivate let waiting: WaitingBytes

            mutating func next() async -> Event? {
                guard let event = await events.next() else { return nil }
                waiting.taken(event.bytes.readableBytes)
                return event
            }
        }

        func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(events: events.makeAsyncIterator(), waiting: waiting)
        }
    }

    /// The bytes of events yielded to a stream and not yet taken by its client.
    fileprivate final class WaitingBytes: Sendable {
        let limit: Int
        private let count = Atomic<Int>(0)

        init(limit: Int) {
            self.limit = limit
        }

        /// Counts an event about to be yielded; `false` when it would take the stream past its limit.
        func admit(_ size: Int) -> Bool {
            let waiting = count.load(ordering: .relaxed)
            guard waiting == 0 || size <= limit - waiting else { return false }
            count.wrappingAdd(size, ordering: .relaxed)
            return true
        }

        func taken(_ size: Int) {
            count.wrappingSubtract(size, ordering: .relaxed)
        }
    }

    /// Who looks, and in which form: streams with equal views share one rendering of every change.
    struct View: Sendable, Hashable {
        var viewer: Viewer
        var format: Format
        /// At most this many notifications of each group (``RenderOptions/notificationLimit``).
        var notificationLimit: Int?

        var options: RenderOptions { RenderOptions(notificationLimit: notificationLimit) }
    }

    enum Format: Sendable, Hashable {
        /// The rendered center's JSON (scenario.md).
        case json
        /// The web page's HTML fragments.
        case html
    }

    /// One event, ready to write: the same buffer goes to every stream of a view.
    struct Event: Sendable {
        var bytes: ByteBuffer

        init(text: String) {
            bytes = ByteBuffer(string: text)
        }
    }

    /// How many events a slow stream may have waiting before it is closed; its client reconnects with
    /// `Last-Event-ID` and resumes from a fresh rendering.
    static let bufferLimit = 4_096
    /// How many removed groups are remembered for resuming clients.
    static let removedGroupLimit = 10_000

    fileprivate struct State {
        var subscribers: [Int: (view: View, continuation: AsyncStream<Event>.Continuation, waiting: WaitingBytes)] = [:]
        var nextSubscriberID = 0
        var lastChange: UInt64
        /// Changes after this number are known group by group; a client resuming from before it gets the
        /// whole center.
        var horizon: UInt64
        /// The change that last touched each group, after the horizon.
        var groupChanges: [GroupID: UInt64] = [:]
        /// Groups that went away after the horizon, with the change that removed them.
        var removedGroups: [GroupID: UInt64] = [:]
    }

    private let state: Mutex<State>
    private let pages: WebPages

    init(horizon: UInt64, pages: WebPages = .shared) {
        state = Mutex(State(lastChange: horizon, horizon: horizon))
        self.pages = pages
    }

    /// Opens a stream. It starts with the whole center (`center`), with the groups changed since the
    /// client's number (`change`), or with nothing when the client is up to date; then one `change` event
    /// per change.
    /// - Parameter center: the center as of the feed's last change (the caller holds it still).
    func subscribe(_ subscription: Subscription, center: borrowing Center) -> Stream {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingOldest(Self.bufferLimit))
        let view = subscription.view
        let waiting = WaitingBytes(limit: subscription.bufferBytes)
        let id = state.withLock { state in
            let lastChange = state.lastChange
            let first: Event?
            if let resumingAfter = subscription.resumingAfter, resumingAfter >= state.horizon, resumingAfter <= lastChange {
                if resumingAfter < lastChange {
                    let changed = state.groupChanges.filter { $0.value > resumingAfter }.map(\.key)
                    let removed = state.removedGroups.filter { $0.value > resumingAfter }.map(\.key)
                    first = Self.changeEvent(
                        ChangeEffect(number: lastChange, groups: Set(changed + removed)), view: view, center: center, pages: pages)
                } else {
                    first = nil
                }
            } else {
                first = Self.centerEvent(number: lastChange, view: view, center: center, pages: pages)
            }
            if let first {
                // The first event always fits, however large: the buffer is empty.
                _ = waiting.admit(first.bytes.readableBytes)
                continuation.yield(first)
            }
            let id = state.nextSubscriberID
            state.nextSubscriberID += 1
            state.subscribers[id] = (view, continuation, waiting)
            return id
        }
        ServerMetrics.streamOpened()
        continuation.onTermination = { [weak self] _ in
            ServerMetrics.streamClosed()
            self?.state.withLock { state in state.subscribers[id] = nil }
        }
        return Stream(events: stream, waiting: waiting)
    }

    /// Tells every stream what a change did.
    /// - Parameter center: the center just after the change (the caller holds it still).
    func publish(_ effect: ChangeEffect, center: borrowing Center) {
        let dropped = state.withLock { state -> [AsyncStream<Event>.Continuation] in
            state.lastChange = effect.number
            if effect.reset {
                state.horizon = effect.number
                state.groupChanges = [:]
                state.removedGroups = [:]
            } else {
                guard !effect.groups.isEmpty else { return [] }
                for group in effect.groups {
                    if center.leadingNotification(of: group) == nil {
                        state.groupChanges[group] = nil
                        state.removedGroups[group] = effect.number
                    } else {
                        state.groupChanges[group] = effect.number
                        state.removedGroups[group] = nil
                    }
                }
                state.forgetOldRemovedGroups()
            }
            var rendered: [View: Event] = [:]
            var dropped: [AsyncStream<Event>.Continuation] = []
            for (id, subscriber) in state.subscribers {
                let event: Event
                if let done = rendered[subscriber.view] {
                    event = done
                } else {
                    event = effect.reset
                        ? Self.centerEvent(number: effect.number, view: subscriber.view, center: center, pages: pages)
                        : Self.changeEvent(effect, view: subscriber.view, center: center, pages: pages)
                    rendered[subscriber.view] = event
                }
                if !state.send(event, to: id) { dropped.append(subscriber.continuation) }
            }
            return dropped
        }
        Self.finish(dropped)
    }

    /// Sends a comment to every stream, so that proxies and clients see the connection alive.
    func heartbeat() {
        let heartbeat = Event(text: ": heartbeat\n\n")
        let dropped = state.withLock { state in
            var dropped: [AsyncStream<Event>.Continuation] = []
            for (id, subscriber) in state.subscribers where !state.send(heartbeat, to: id) {
                dropped.append(subscriber.continuation)
            }
            return dropped
        }
        Self.finish(dropped)
    }

    /// Ends every stream (the device was deleted).
    func finishAll() {
        Self.finish(state.withLock { state in
            defer { state.subscribers = [:] }
            return state.subscribers.values.map(\.continuation)
        })
    }

    /// Ends streams, outside the lock: finishing runs their termination handlers, which take it.
    private static func finish(_ continuations: [AsyncStream<Event>.Continuation]) {
        for continuation in continuations { continuation.finish() }
    }

    /// The number of open streams (for tests and metrics).
    var subscriberCount: Int {
        state.withLock { $0.subscribers.count }
    }

    // MARK: Events

    private static func centerEvent(number: UInt64, view: View, center: borrowing Center, pages: WebPages) -> Event {
        let rendered = center.render(for: view.viewer, options: view.options)
        let body: JSONValue = switch view.format {
        case .json: .object(JSONObject([("change", .integer(Int64(number))), ("center", rendered.json)]))
        case .html: .object(JSONObject([("change", .integer(Int64(number))), ("html", .string(pages.groups(rendered, center: center)))]))
        }
        return event(id: number, name: "center", data: body)
    }

    private static func changeEvent(_ effect: ChangeEffect, view: View, center: borrowing Center, pages: WebPages) -> Event {
        let order = center.groupIDs
        var position: [GroupID: Int] = [:]
        for (index, group) in order.enumerated() where effect.groups.contains(group) { position[group] = index }
        var groups: [JSONValue] = []
        var removedGroups: [JSONValue] = []
        for group in effect.groups.sorted(by: { (position[$0] ?? .max, $0) < (position[$1] ?? .max, $1) }) {
            guard let index = position[group], let rendered = center.render(group: group, for: view.viewer, options: view.options) else {
                removedGroups.append(.string(group.description))
                continue
            }
            switch view.format {
            case .json:
                groups.append(.object(JSONObject([("position", .integer(Int64(index))), ("group", rendered.json)])))
            case .html:
                groups.append(.object(JSONObject([
                    ("id", .string(rendered.id)), ("position", .integer(Int64(index))),
                    ("html", .string(pages.group(rendered, center: center))),
                ])))
            }
        }
        let body = JSONValue.object(JSONObject([
            ("change", .integer(Int64(effect.number))), ("groups", .array(groups)), ("removedGroups", .array(removedGroups)),
            ("delivered", .array(effect.delivered.map(JSONValue.string))), ("removed", .array(effect.removed.map(JSONValue.string))),
        ]))
        return event(id: effect.number, name: "change", data: body)
    }

    /// An SSE event. The JSON text is on one line (the writer escapes line breaks), so one `data:` line
    /// carries it.
    private static func event(id: UInt64, name: String, data: JSONValue) -> Event {
        Event(text: "id: \(id)\nevent: \(name)\ndata: \(data.jsonText())\n\n")
    }
}

extension CenterFeed.State {
    /// Yields an event.
    /// - Returns: `false` when the stream is gone or too far behind: it is dropped then, and the caller
    ///   finishes it after the lock (its client resumes with `Last-Event-ID`).
    fileprivate mutating func send(_ event: CenterFeed.Event, to id: Int) -> Bool {
        guard let subscriber = subscribers[id] else { return true }
        if subscriber.waiting.admit(event.bytes.readableBytes), case .enqueued = subscriber.continuation.yield(event) { return true }
        subscribers[id] = nil
        return false
    }

    /// Keeps the memory of removed groups bounded: the oldest are forgotten, and clients resuming from
    /// before them get the whole center.
    fileprivate mutating func forgetOldRemovedGroups() {
        guard removedGroups.count > CenterFeed.removedGroupLimit else { return }
        let sorted = removedGroups.sorted { $0.value < $1.value }
        let forgotten = sorted.prefix(sorted.count / 2)
        horizon = max(horizon, forgotten.last?.value ?? horizon)
        for (group, _) in forgotten { removedGroups[group] = nil }
    }
}
