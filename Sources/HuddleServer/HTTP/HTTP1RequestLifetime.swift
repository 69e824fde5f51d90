import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// The deadlines of an HTTP/1.1 connection's requests, for every request (pushes and the router's alike), between
/// Hummingbird's connection state and whatever answers them; past either, the connection is closed:
/// - a request must arrive whole within `--request-timeout` of its turn: of its head, or, for a request pipelined
///   behind one not yet answered, of that answer's end (until then it is not read). A total, so that a body that
///   trickles is cut off as surely as one that stops; Hummingbird's own timeout counts only silence.
/// - an answer the client stops taking must not wait more than `--write-timeout`: once the connection's writes back
///   up (the socket's buffers full, NIO's pending writes past their high-water mark, so the channel is not writable),
///   the client has that long to take them. A small answer a client leaves unread sits in the kernel's buffers, not the
///   server's, until Hummingbird's idle timeout closes the connection. Writability costs nothing per write: a promise
///   per write cost HTTP/1.1 pushes a tenth of their rate (`Tools/bench/floor.sh`).
///
/// An answer that begins before its request has ended (a refusal that needs no body) says `Connection: close`,
/// and the connection stops sending after it: nothing more of that request is worth reading, and the request
/// deadline closes the connection if the client goes on sending.
final class HTTP1RequestLifetime: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let requestTimeout: TimeAmount
    private let writeTimeout: TimeAmount
    /// Requests read to their end, and answers written to theirs: the next answer is for request
    /// `answersEnded + 1`, whose end has been read when `requestsEnded` is past `answersEnded`.
    private var requestsEnded = 0
    private var answersEnded = 0
    /// A request's head was read and not yet its end.
    private var isReadingRequest = false
    /// When the request being read got its turn; `nil` while an earlier one is still unanswered.
    private var turnBegan: NIODeadline?
    private var requestTimer: Scheduled<Void>?
    /// The answer being written ends the connection.
    private var closesAfterAnswer = false
    /// Set while the connection is not writable: when the client's time to take what waits is up.
    private var writeTimer: Scheduled<Void>?
    private var context: ChannelHandlerContext?

    init(requestTimeout: TimeAmount, writeTimeout: TimeAmount) {
        self.requestTimeout = requestTimeout
        self.writeTimeout = writeTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        requestTimer?.cancel()
        requestTimer = nil
        writeTimer?.cancel()
        writeTimer = nil
        self.context = nil
    }

    // MARK: Requests

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            isReadingRequest = true
            turnBegan = requestsEnded == answersEnded ? context.eventLoop.now : nil
        case .body:
            break
        case .end:
            isReadingRequest = false
            requestsEnded += 1
            turnBegan = nil
            requestTimer?.cancel()
            requestTimer = nil
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        scheduleRequestDeadline()
        context.fireChannelReadComplete()
    }

    private func scheduleRequestDeadline() {
        guard isReadingRequest, let turnBegan, requestTimer == nil, let context else { return }
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        requestTimer = context.eventLoop.scheduleTask(deadline: turnBegan + requestTimeout) {
            let handler = bound.value
            handler.requestTimer = nil
            if handler.isReadingRequest, handler.turnBegan != nil { handler.context?.close(promise: nil) }
        }
    }

    /// A client that closes its side while its answer is being made has gone: over HTTP/1.1 that cannot be told
    /// from a half-close, which HTTP clients do not make before their answer (RFC 9112 §9.6 has a client close
    /// after it), and nginx reads it the same way. The connection closes, so that what waits for the answer (a
    /// `wait=` and its slot) ends now, not when its time is up.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed, requestsEnded > answersEnded {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    // MARK: Answers

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var response):
            // Its request is still coming: this answer is the connection's last. (An informational head, such as 100
            // Continue, asks for the rest of the request instead.)
            if requestsEnded <= answersEnded, response.status.kind != .informational {
                closesAfterAnswer = true
                response.headerFields[.connection] = "close"
                context.write(wrapOutboundOut(.head(response)), promise: promise)
                return
            }
        case .body:
            break
        case .end:
            answersEnded += 1
            if isReadingRequest, turnBegan == nil {
                // The request pipelined behind this answer has its turn now.
                turnBegan = context.eventLoop.now
                scheduleRequestDeadline()
            }
            if closesAfterAnswer {
                closesAfterAnswer = false
                let written = promise ?? context.eventLoop.makePromise()
                context.write(data, promise: written)
                written.futureResult.assumeIsolated().whenComplete { [self] _ in stopSending() }
                return
            }
        }
        context.write(data, promise: promise)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            writeTimer?.cancel()
            writeTimer = nil
        } else if writeTimer == nil {
            let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
            writeTimer = context.eventLoop.scheduleTask(in: writeTimeout) {
                let handler = bound.value
                handler.writeTimer = nil
                if let context = handler.context, !context.channel.isWritable { context.close(promise: nil) }
            }
        }
        context.fireChannelWritabilityChanged()
    }

    /// After an answer that ends the connection: its sending side closes, so the client gets the answer and the
    /// close, and nothing more is read. Closing both sides at once, with a body unread, would be a reset, which
    /// can reach the client before the answer and destroy it. A connection that cannot close one side (TLS may
    /// not) closes whole.
    private func stopSending() {
        guard let context, context.channel.isActive else { return }
        let channel = context.channel
        let closed = context.eventLoop.makePromise(of: Void.self)
        closed.futureResult.whenFailure { _ in channel.close(promise: nil) }
        context.close(mode: .output, promise: closed)
    }
}
