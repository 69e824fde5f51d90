import HTTPTypes
import NIOCore
import NIOHTTP2
import NIOHTTPTypes

/// One HTTP/2 stream with a channel of its own (a stream handed to the router), between the HTTP codec and whatever
/// answers the request: it lives the port's one stream life (``StreamLife``, which ``SenderStream`` lives too), in
/// `HTTPRequestPart`s and `HTTPResponsePart`s:
/// - past the request's deadline the stream is reset;
/// - past the write deadline (the client took nothing of a write for `--write-timeout`) the stream is reset, which
///   frees what the connection held for it;
/// - an answer that ends before its request did ends the request: nothing more of the body is read, and once the
///   answer's end has gone out the stream is reset with `NO_ERROR`, so that the client keeps the answer and stops
///   sending.
final class StreamLifetime: ChannelDuplexHandler, RemovableChannelHandler, LivesStreamLife {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let requestTimeout: TimeAmount
    var life: StreamLife
    private var context: ChannelHandlerContext?

    /// A stream opening now, on `eventLoop`.
    init(connection: ConnectionStreams, requestTimeout: TimeAmount, eventLoop: any EventLoop) {
        self.requestTimeout = requestTimeout
        life = StreamLife(connection: connection, eventLoop: eventLoop)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        lifeEnded()
        self.context = nil
    }

    // MARK: The request

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) { life.requestDidEnd() }
        // What comes of a request after its answer is nobody's: dropped, until the reset reaches the client.
        guard !life.answerEnded else { return }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        scheduleRequestDeadline(requestTimeout)
        context.fireChannelReadComplete()
    }

    func requestDeadlinePassed() {
        context?.close(promise: nil)
        // As for a reset (below): idle at once, not only once the close has reached the client.
        life.becomeIdle()
    }

    // MARK: The answer

    /// The endpoint's word that it accepted a sender's message (``SenderAccepted``); any other event goes on.
    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is SenderAccepted else { return context.triggerUserOutboundEvent(event, promise: promise) }
        life.senderAccepted()
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
            life.answerDidEnd()
        }
        guard life.mayHold(bytes) else {
            // The connection holds as much as it may for a client that does not read: this answer is dropped.
            promise?.fail(ChannelError.outputClosed)
            context.close(promise: nil)
            return
        }
        let taken = promise ?? context.eventLoop.makePromise()
        holdAnswer(bytes, until: taken.futureResult)
        let stopsRequest = life.answerStopsRequest
        context.write(data, promise: taken)
        if stopsRequest {
            // The reset goes once the answer's end has gone out: sent before it, it would drop the answer's frames
            // still waiting for the client's window.
            taken.futureResult.assumeIsolated().whenSuccess { [self] in stopRequest() }
        }
    }

    /// Resets the stream (RST_STREAM `CANCEL`): its client did not take its answer in time.
    func reset() {
        context?.close(promise: nil)
        life.becomeIdle()
    }

    /// Asks the client to stop sending the rest of a request that has its answer: RST_STREAM `NO_ERROR`. Written
    /// below the HTTP codec, which carries no frames but the response's.
    private func stopRequest() {
        guard let context, context.channel.isActive, !life.requestEnded,
            let frames = try? context.pipeline.syncOperations.context(handlerType: EndStreamCoalescer.self)
        else { return }
        frames.writeAndFlush(NIOAny(HTTP2Frame.FramePayload.rstStream(.noError)), promise: nil)
    }
}
