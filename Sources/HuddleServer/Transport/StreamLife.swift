import NIOCore

/// The life of one HTTP/2 stream of the port as every stream lives it, whoever reads and answers it: a sender's message
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
/// A value its stream keeps inline (``LivesStreamLife``), so that a push allocates nothing more for it. Its times are its
/// event loop's (`EventLoop.now`), so that a test's loop moves them.
struct StreamLife {
    let opened: NIODeadline
    let connection: ConnectionStreams
    let eventLoop: any EventLoop
    private(set) var requestEnded = false
    private(set) var answerEnded = false
    private var isBusy = true
    fileprivate var requestTimer: Scheduled<Void>?
    /// The answer's writes that the client has not taken yet.
    fileprivate(set) var untaken = UntakenWrites()

    /// A stream opening now: busy.
    init(connection: ConnectionStreams, eventLoop: any EventLoop) {
        self.connection = connection
        self.eventLoop = eventLoop
        opened = eventLoop.now
        connection.streamBusy()
    }

    /// The request's end arrived: its deadline no longer applies.
    mutating func requestDidEnd() {
        requestEnded = true
        requestTimer?.cancel()
        requestTimer = nil
    }

    /// The endpoint accepted a sender's message on this stream.
    func senderAccepted() {
        if connection.isWaitingForAPush { connection.pushAccepted() }
    }

    /// Whether the connection may hold `bytes` more of this stream's answer for its client.
    func mayHold(_ bytes: Int) -> Bool {
        connection.mayHold(bytes, besides: untaken.bytes)
    }

    /// The answer's end is written (or under way): the stream is idle for its connection.
    mutating func answerDidEnd() {
        answerEnded = true
        becomeIdle()
    }

    /// Whether the answer ended before the request did: the client is to be told to stop sending the rest once the
    /// answer's end has gone out (RST_STREAM `NO_ERROR`, RFC 9113 §8.1).
    var answerStopsRequest: Bool { answerEnded && !requestEnded }

    /// The stream is reset, or about to be: nothing more happens on it, so its connection's deadlines apply again at
    /// once, not only once the reset has left (a client that does not read its socket leaves it waiting).
    mutating func becomeIdle() {
        guard isBusy else { return }
        isBusy = false
        connection.streamIdle()
    }
}

/// A stream that lives the port's stream life (``StreamLife``): what its request deadline and its held writes come back
/// to, on its event loop.
protocol LivesStreamLife: HeldAnswers {
    var life: StreamLife { get set }
    /// The request's deadline passed before its end: the stream is to be reset.
    func requestDeadlinePassed()
}

extension LivesStreamLife {
    var untaken: UntakenWrites { life.untaken }

    /// Sets the request's deadline, `timeout` after the opening, unless the request has ended or the deadline is set
    /// already (most requests arrive in one read, and need none).
    func scheduleRequestDeadline(_ timeout: TimeAmount) {
        guard !life.requestEnded, life.requestTimer == nil else { return }
        let bound = NIOLoopBound(self as any LivesStreamLife, eventLoop: life.eventLoop)
        life.requestTimer = life.eventLoop.scheduleTask(deadline: life.opened + timeout) {
            let stream = bound.value
            stream.life.requestTimer = nil
            if !stream.life.requestEnded { stream.requestDeadlinePassed() }
        }
    }

    /// Holds `bytes` of the answer until `taken` completes (the client took them, or the stream went), watched by the
    /// connection's write deadline meanwhile, which resets the stream if its client takes nothing in time.
    func holdAnswer(_ bytes: Int, until taken: EventLoopFuture<Void>) {
        let wasEmpty = life.untaken.isEmpty
        life.untaken.add(bytes: bytes, at: life.eventLoop.now)
        life.connection.held(bytes)
        if wasEmpty { life.connection.watch(self) }
        taken.assumeIsolated().whenComplete { [self] _ in
            life.untaken.take(bytes: bytes)
            life.connection.released(bytes)
            if life.untaken.isEmpty { life.connection.stopWatching(self) }
        }
    }

    /// The stream closed (both ends, a reset either way, or its connection): no deadline, nothing watched.
    func lifeEnded() {
        life.requestTimer?.cancel()
        life.requestTimer = nil
        life.becomeIdle()
        life.connection.stopWatching(self)
    }
}
