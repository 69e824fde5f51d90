import NIOCore

/// A stream whose answer waits for its client (``ConnectionStreams`` watches it): what it holds, and how to give up.
protocol HeldAnswers: AnyObject {
    /// The answer's writes that the client has not taken yet.
    var untaken: UntakenWrites { get }
    /// Resets the stream (RST_STREAM `CANCEL`): its client did not take its answer in time.
    func reset()
}

/// What the streams of one HTTP/2 connection share, on its event loop (``StreamLifetime`` and ``SenderStream`` tell it):
/// - which streams are busy, for the connection's idle deadlines (``IdleDeadline`` before a push is accepted,
///   then ``HTTP2ConnectionManager``'s idle timeout): a stream whose answer is written and waits only for the
///   client's window is not busy;
/// - the bytes of answers handed to the connection that its client has not taken, bounded by
///   `maximumHeldBytes`: a client that never opens its window (or never reads the socket) gets no more than
///   that held for it, whatever number of streams it opens;
/// - the write deadline: one timer for the connection, due when its longest-waiting write is, resets the streams
///   whose client took nothing of a write for `writeTimeout`.
final class ConnectionStreams {
    private let idleDeadline: IdleDeadline
    private let manager: HTTP2ConnectionManager
    private let writeTimeout: TimeAmount
    private let maximumHeldBytes: Int
    /// The bytes handed to the connection for its client and not yet taken.
    private(set) var heldBytes = 0
    /// The streams with writes waiting for their client.
    private var waiting: [ObjectIdentifier: any HeldAnswers] = [:]
    private var writeDeadline: Scheduled<Void>?
    private let eventLoop: any EventLoop

    init(
        eventLoop: any EventLoop, idleDeadline: IdleDeadline, manager: HTTP2ConnectionManager, writeTimeout: TimeAmount,
        maximumHeldBytes: Int
    ) {
        self.eventLoop = eventLoop
        self.idleDeadline = idleDeadline
        self.manager = manager
        self.writeTimeout = writeTimeout
        self.maximumHeldBytes = maximumHeldBytes
    }

    // MARK: Idleness

    func streamBusy() {
        idleDeadline.streamBusy()
        manager.streamBusy()
    }

    func streamIdle() {
        idleDeadline.streamIdle()
        manager.streamIdle()
    }

    var isWaitingForAPush: Bool { idleDeadline.isWaitingForAPush }

    func pushAccepted() { idleDeadline.pushAccepted() }

    // MARK: Held answers

    /// Whether a stream that holds `own` bytes already may add `bytes`: an empty write always may, and a stream
    /// alone in holding anything may (its own answer's size is bounded where it is made, and Hummingbird's writer
    /// waits for the stream's window); otherwise only within `maximumHeldBytes`.
    func mayHold(_ bytes: Int, besides own: Int) -> Bool {
        bytes == 0 || heldBytes == own || heldBytes + bytes <= maximumHeldBytes
    }

    func held(_ bytes: Int) { heldBytes += bytes }

    func released(_ bytes: Int) { heldBytes -= bytes }

    // MARK: The write deadline

    func watch(_ stream: any HeldAnswers) {
        waiting[ObjectIdentifier(stream)] = stream
        if writeDeadline == nil { scheduleWriteDeadline(at: eventLoop.now + writeTimeout) }
    }

    func stopWatching(_ stream: any HeldAnswers) {
        waiting[ObjectIdentifier(stream)] = nil
    }

    /// The connection closed: its streams are gone, and nothing is due.
    func connectionClosed() {
        writeDeadline?.cancel()
        writeDeadline = nil
        waiting = [:]
    }

    private func scheduleWriteDeadline(at deadline: NIODeadline) {
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        writeDeadline = eventLoop.scheduleTask(deadline: deadline) { bound.value.checkWrites() }
    }

    /// Resets the streams whose oldest write has waited `writeTimeout`; looks again when the next one is due.
    private func checkWrites() {
        writeDeadline = nil
        let now = eventLoop.now
        var next: NIODeadline?
        for stream in waiting.values {
            if stream.untaken.hasWaited(writeTimeout, at: now) {
                waiting[ObjectIdentifier(stream)] = nil
                stream.reset()
            } else if let oldest = stream.untaken.oldest {
                next = min(next ?? oldest + writeTimeout, oldest + writeTimeout)
            }
        }
        if let next { scheduleWriteDeadline(at: next) }
    }
}
