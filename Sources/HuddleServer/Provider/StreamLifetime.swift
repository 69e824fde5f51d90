import HTTPTypes
import NIOCore
import NIOHTTP2
import NIOHTTPTypes

/// The deadlines of one HTTP/2 stream with a channel of its own (a stream handed to the router; ``PushStream`` keeps
/// the same for a push), between the HTTP codec and whatever answers the request:
/// - the request must arrive whole within `--request-timeout` of the stream's opening: a total, so that a body
///   that trickles is cut off as surely as one that stops. Past it the stream is reset.
/// - each write of the answer must be taken by the client (let through its flow-control window onto the socket)
///   within `--write-timeout`. Past it the stream is reset, which frees what the connection held for it.
/// - an answer that ends before its request did (a refusal that needs no body) ends the request: nothing more
///   of the body is read, and once the answer's end has gone out the stream is reset with `NO_ERROR`, which
///   RFC 9113 §8.1 gives for this, so that the client keeps the answer and stops sending.
///
/// It tells its connection (``ConnectionStreams``) when the stream is busy (from its opening until its answer's
/// end is written: a stream whose answer waits only for the client's window is idle for the connection's
/// deadlines), what its answer holds for the client (which the connection bounds), and when a push is accepted.
///
/// Most pushes arrive in one read and are answered at once, so the request's deadline is only set when a read
/// leaves the request unfinished, and the write deadline is one timer per connection (``ConnectionStreams``).
final class StreamLifetime: ChannelDuplexHandler, RemovableChannelHandler, HeldAnswers {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart


    private let connection: ConnectionStreams
    private let requestTimeout: TimeAmount
    private let opened = NIODeadline.now()
    private var requestEnded = false
    private var answerEnded = false
    private var isBusy = false
    private var requestTimer: Scheduled<Void>?
    private var context: ChannelHandlerContext?
    /// The answer's writes that the client has not taken yet.
    private(set) var untaken = UntakenWrites()

    init(connection: ConnectionStreams, requestTimeout: TimeAmount) {
        self.connection = connection
        self.requestTimeout = requestTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        isBusy = true
        connection.streamBusy()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        requestTimer?.cancel()
        requestTimer = nil
        becomeIdle()
        connection.stopWatching(self)
        self.context = nil
    }

    // MARK: The request

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) {
            requestEnded = true
            requestTimer?.cancel()
            requestTimer = nil
        }
        // What comes of a request after its answer is nobody's: dropped, until the reset reaches the client.
        guard !answerEnded else { return }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if !requestEnded, requestTimer == nil {
            let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
            requestTimer = context.eventLoop.scheduleTask(deadline: opened + requestTimeout) {
                let (handler, context) = bound.value
                handler.requestTimer = nil
                if !handler.requestEnded {
                    context.close(promise: nil)
                    // As for a reset (below): idle at once, not only once the close has reached the client.
                    handler.becomeIdle()
                }
            }
        }
        context.fireChannelReadComplete()
    }

    // MARK: The answer

    /// The endpoint's word that it accepted a sender's message (``SenderAccepted``); any other event goes on.
    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is SenderAccepted else { return context.triggerUserOutboundEvent(event, promise: promise) }
        if connection.isWaitingForAPush { connection.pushAccepted() }
        promise?.succeed(())
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let bytes: Int
        switch unwrapOutboundIn(data) {
        case .head:
            // HEADERS are not flow-controlled: they go out with the next flush whatever the window.
            context.write(data, promise: promise)
            return
        case .body(let body):
            bytes = body.readableBytes
        case .end:
            bytes = 0
            answerEnded = true
            becomeIdle()
        }
        guard connection.mayHold(bytes, besides: untaken.bytes) else {
            // The connection holds as much as it may for a client that does not read: this answer is dropped.
            promise?.fail(ChannelError.outputClosed)
            context.close(promise: nil)
            return
        }
        let taken = promise ?? context.eventLoop.makePromise()
        hold(bytes, until: taken.futureResult, context: context)
        let stopsRequest = answerEnded && !requestEnded
        context.write(data, promise: taken)
        if stopsRequest {
            // The reset goes once the answer's end has gone out: sent before it, it would drop the answer's frames
            // still waiting for the client's window.
            taken.futureResult.assumeIsolated().whenSuccess { [self] in stopRequest() }
        }
    }

    private func hold(_ bytes: Int, until taken: EventLoopFuture<Void>, context: ChannelHandlerContext) {
        let wasEmpty = untaken.isEmpty
        untaken.add(bytes: bytes, at: .now())
        connection.held(bytes)
        if wasEmpty { connection.watch(self) }
        taken.assumeIsolated().whenComplete { [self] _ in
            untaken.take(bytes: bytes)
            connection.released(bytes)
            if untaken.isEmpty { connection.stopWatching(self) }
        }
    }

    /// Resets the stream (RST_STREAM `CANCEL`): its client did not take its answer in time.
    func reset() {
        context?.close(promise: nil)
        // The stream does nothing more: its connection's deadlines apply again at once, not only once the reset has
        // left (a client that does not read its socket leaves it waiting in the HTTP/2 handler's buffer).
        becomeIdle()
    }

    /// Asks the client to stop sending the rest of a request that has its answer: RST_STREAM `NO_ERROR`. Written
    /// below the HTTP codec, which carries no frames but the response's.
    private func stopRequest() {
        guard let context, context.channel.isActive, !requestEnded,
            let frames = try? context.pipeline.syncOperations.context(handlerType: EndStreamCoalescer.self)
        else { return }
        frames.writeAndFlush(NIOAny(HTTP2Frame.FramePayload.rstStream(.noError)), promise: nil)
    }

    private func becomeIdle() {
        guard isBusy else { return }
        isBusy = false
        connection.streamIdle()
    }
}
