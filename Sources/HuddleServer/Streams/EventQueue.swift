import NIOCore
import Synchronization

/// The events waiting for one stream's client.
///
/// The publisher adds events without ever waiting, so a slow client cannot slow a delivery. The stream's
/// writer takes everything that waits at once: a client that fell behind catches up in one write and one
/// flush instead of one per event. Past ``byteLimit`` bytes waiting, the queue ends; the client reconnects
/// with `Last-Event-ID` and resumes from a fresh rendering.
final class EventQueue: Sendable {
    private struct State {
        var waiting: [ByteBuffer] = []
        var waitingBytes = 0
        /// The writer, when it waits for an event.
        var reader: CheckedContinuation<ByteBuffer?, Never>?
        var ended = false
    }

    /// How many bytes may wait; one event may always wait, however large.
    let byteLimit: Int
    private let state = Mutex(State())

    init(byteLimit: Int) {
        self.byteLimit = byteLimit
    }

    /// Adds an event for the client.
    /// - Returns: `false` when the queue has ended, or ends now because the client is too far behind.
    @discardableResult
    func add(_ event: ByteBuffer) -> Bool {
        let (reader, added) = state.withLock { state -> (CheckedContinuation<ByteBuffer?, Never>?, Bool) in
            guard !state.ended else { return (nil, false) }
            if let reader = state.reader {
                state.reader = nil
                return (reader, true)
            }
            guard state.waiting.isEmpty || event.readableBytes <= byteLimit - state.waitingBytes else {
                state.ended = true
                return (nil, false)
            }
            state.waiting.append(event)
            state.waitingBytes += event.readableBytes
            return (nil, true)
        }
        // Resumed outside the lock: resuming may run the writer at once.
        reader?.resume(returning: event)
        return added
    }

    /// Everything that waits, in one buffer; waits for an event when there is none. `nil` once the queue has
    /// ended and what waited is taken, or when the writer's task is cancelled.
    func next() async -> ByteBuffer? {
        if let taken = state.withLock({ Self.take(&$0) }) { return taken }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ByteBuffer?, Never>) in
                let ready: ByteBuffer?? = state.withLock { state in
                    if let taken = Self.take(&state) { return .some(taken) }
                    if state.ended || Task.isCancelled { return .some(nil) }
                    state.reader = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            end()
        }
    }

    /// Ends the queue: the writer gets what waits, then `nil`.
    func end() {
        let reader = state.withLock { state in
            state.ended = true
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume(returning: nil)
    }

    /// The bytes waiting now (for tests).
    var waitingBytes: Int { state.withLock { $0.waitingBytes } }

    /// Takes what waits, joined into one buffer; `nil` when nothing does.
    private static func take(_ state: inout State) -> ByteBuffer? {
        guard var first = state.waiting.first else { return nil }
        if state.waiting.count > 1 {
            first.reserveCapacity(minimumWritableBytes: state.waitingBytes - first.readableBytes)
            for var event in state.waiting.dropFirst() { first.writeBuffer(&event) }
        }
        state.waiting.removeAll(keepingCapacity: true)
        state.waitingBytes = 0
        return first
    }
}
