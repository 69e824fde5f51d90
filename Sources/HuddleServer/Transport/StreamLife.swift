import NIOCore

/// The life of one HTTP/2 stream of the provider port as every stream lives it, whoever reads and answers it: a push
/// read on its connection's own pipeline (``SenderStream``) or any other request on a channel of its own
/// (``StreamLifetime``). The rules are written here once:
/// - the stream is busy for its connection's idle deadlines from its opening until its answer's end is written, or
///   until it is reset or closed: a stream whose answer waits only for the client's window is idle;
/// - the request must arrive whole within `--request-timeout` of the opening: a total, so that a body that trickles
///   is cut off as surely as one that stops;
/// - the answer's writes count toward what the connection may hold for a client that does not read, and are watched
///   by its write deadline (``ConnectionStreams``) until the client takes them;
/// - the endpoint's word that it accepted a sender's message (``SenderAccepted``) makes the connection a provider's.
///
/// Its times are its event loop's (`EventLoop.now`), so that a test's loop moves them.
final class StreamLife {
    let opened: NIODeadline
    private let connection: ConnectionStreams
    private let eventLoop: any EventLoop
    private(set) var requestEnded = false
    private(set) var answerEnded = false
    private var isBusy = true
    private var requestTimer: Scheduled<Void>?
    /// The answer's writes that the client has not taken yet.
    private(set) var untaken = UntakenWrites()

    /// A stream opening now: busy.
    init(connection: ConnectionStreams, eventLoop: any EventLoop) {
        self.connection = connection
        self.eventLoop = eventLoop
        opened = eventLoop.now
        connection.streamBusy()
    }

    // MARK: The request

    /// The request's end arrived: its deadline no longer applies.
    func requestDidEnd() {
        requestEnded = true
        requestTimer?.cancel()
        requestTimer = nil
    }

    /// Sets the request's deadline, `timeout` after the opening, unless the request has ended or the deadline is set
    /// already (most requests arrive in one read, and need none). `expired` runs if the deadline passes first.
    func startRequestDeadline(_ timeout: TimeAmount, expired: @escaping () -> Void) {
        guard !requestEnded, requestTimer == nil else { return }
        let bound = NIOLoopBound((life: self, expired: expired), eventLoop: eventLoop)
        requestTimer = eventLoop.scheduleTask(deadline: opened + timeout) {
            let (life, expired) = bound.value
            life.requestTimer = nil
            if !life.requestEnded { expired() }
        }
    }

    // MARK: The answer

    /// The endpoint accepted a sender's message on this stream.
    func senderAccepted() {
        if connection.isWaitingForAPush { connection.pushAccepted() }
    }

    /// Whether the connection may hold `bytes` more of this stream's answer for its client.
    func mayHold(_ bytes: Int) -> Bool {
        connection.mayHold(bytes, besides: untaken.bytes)
    }

    /// Holds `bytes` of the answer until `taken` completes (the client took them, or the stream went), watched by the
    /// connection's write deadline meanwhile, which resets `stream` if its client takes nothing in time.
    func hold(_ bytes: Int, until taken: EventLoopFuture<Void>, for stream: any HeldAnswers) {
        let wasEmpty = untaken.isEmpty
        untaken.add(bytes: bytes, at: eventLoop.now)
        connection.held(bytes)
        if wasEmpty { connection.watch(stream) }
        taken.assumeIsolated().whenComplete { [self] _ in
            untaken.take(bytes: bytes)
            connection.released(bytes)
            if untaken.isEmpty { connection.stopWatching(stream) }
        }
    }

    /// The answer's end is written (or under way): the stream is idle for its connection.
    func answerDidEnd() {
        answerEnded = true
        becomeIdle()
    }

    /// Whether the answer ended before the request did: the client is to be told to stop sending the rest once the
    /// answer's end has gone out (RST_STREAM `NO_ERROR`, RFC 9113 §8.1).
    var answerStopsRequest: Bool { answerEnded && !requestEnded }

    // MARK: The end

    /// The stream is reset, or about to be: nothing more happens on it, so its connection's deadlines apply again at
    /// once, not only once the reset has left (a client that does not read its socket leaves it waiting).
    func becomeIdle() {
        guard isBusy else { return }
        isBusy = false
        connection.streamIdle()
    }

    /// The stream closed (both ends, a reset either way, or its connection): no deadline, nothing watched.
    func closed(_ stream: any HeldAnswers) {
        requestTimer?.cancel()
        requestTimer = nil
        becomeIdle()
        connection.stopWatching(stream)
    }
}
