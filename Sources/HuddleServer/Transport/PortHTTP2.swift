import Foundation
import HTTPTypes
import HuddleCore
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP2
import NIOHTTPTypes
import NIOHTTPTypesHTTP2
import Synchronization

/// An HTTP/2 connection of the provider port, served by NIO channel handlers on its event loop.
///
/// A sender's message (the routes of ``SenderRoutes``: APNs' `/3/…`, FCM's `messages:send`, and with the benchmark
/// routes `/bench/check/3/…` and `/bench/accept`) is read and answered on the connection's own pipeline by
/// ``SenderStreams``, frame by frame, with no channel of its own: one task runs its endpoint
/// (``ProviderEndpoint/answer(_:stores:)``, ``FCMEndpoint/send(project:method:path:headers:authority:body:client:isHTTP2:logger:)``);
/// no async channel and no router per stream. Any other stream (the device
/// API, the pages, the admin API) goes on to NIO's stream multiplexer, which gives it a channel that is wrapped in a
/// `NIOAsyncChannel` and answered by Hummingbird's router. ``HTTP2ConnectionManager`` does what Hummingbird's
/// HTTP/2 channel did for the connection (idle timeout, graceful close).
struct PortHTTP2Connection: Sendable {
    /// A stream that Hummingbird answers (any but a push), as NIO's multiplexer gives it.
    typealias HandedOffStream = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    /// The streams handed to Hummingbird, until the connection closes.
    let handedOff: AsyncStream<HandedOffStream>
    let channel: any Channel

    struct Configuration: Sendable {
        var endpoint: ProviderEndpoint
        var senderRoutes: [any SenderRoute]
        var servesAcceptRoute: Bool
        var connectionIdleTimeout: Duration?
        var requestTimeout: Duration
        var writeTimeout: Duration
        /// Bytes of answers the connection may hold for a client that does not take them (``ConnectionStreams``).
        var maximumHeldBytes: Int
    }

    /// Adds HTTP/2 to a connection's pipeline; on its event loop. Each stream tells `deadline` (which the caller
    /// adds to the pipeline) when it is busy, when it is not, and when a push on it is accepted.
    static func setup(
        channel: any Channel, configuration: Configuration, deadline: IdleDeadline, logger: Logger
    ) throws -> PortHTTP2Connection {
        let (handedOff, continuation) = AsyncStream.makeStream(of: HandedOffStream.self)
        // Between the socket and HTTP/2: the answers that come back together are written with one flush.
        let answers = AnswerWriter(eventLoop: channel.eventLoop)
        let operations = channel.pipeline.syncOperations
        try operations.addHandler(answers)
        let manager = HTTP2ConnectionManager(
            eventLoop: channel.eventLoop, idleTimeout: configuration.connectionIdleTimeout.map { TimeAmount($0) },
            gracefulCloseTimeout: .seconds(5))
        // Streams run on their connection's event loop, where what they share lives.
        let streams = ConnectionStreams(
            eventLoop: channel.eventLoop, idleDeadline: deadline, manager: manager, writeTimeout: TimeAmount(configuration.writeTimeout),
            maximumHeldBytes: configuration.maximumHeldBytes)
        let shared = NIOLoopBound(streams, eventLoop: channel.eventLoop)
        let requestTimeout = TimeAmount(configuration.requestTimeout)
        let clientConnection = ClientConnection()
        let pushes = SenderRoutes(
            endpoint: configuration.endpoint, registered: configuration.senderRoutes, servesAcceptRoute: configuration.servesAcceptRoute, answers: answers,
            isHTTP2: true,
            logger: logger, client: ProviderExchange.client(of: channel), clientConnection: clientConnection)
        let multiplexer = HTTP2StreamMultiplexer(mode: .server, channel: channel) { stream in
            stream.eventLoop.makeCompletedFuture {
                let operations = stream.pipeline.syncOperations
                // Next to the frames: an answer's body and its end go out as one DATA frame.
                try operations.addHandler(EndStreamCoalescer())
                try operations.addHandler(HTTP2FramePayloadToHTTPServerCodec())
                try operations.addHandler(StreamLifetime(connection: shared.value, requestTimeout: requestTimeout, eventLoop: stream.eventLoop))
                continuation.yield(try HandedOffStream(wrappingChannelSynchronously: stream))
            }
        }
        try operations.addHandler(NIOHTTP2Handler(mode: .server))
        try operations.addHandler(SenderStreams(pushes: pushes, connection: streams, requestTimeout: requestTimeout))
        try operations.addHandler(multiplexer)
        try operations.addHandler(manager)
        // After the handlers frames pass through, where none reaches it: it is only looked up.
        try operations.addHandler(ClientConnection.Holder(clientConnection))
        channel.closeFuture.whenComplete { _ in
            continuation.finish()
            shared.value.connectionClosed()
        }
        return PortHTTP2Connection(handedOff: handedOff, channel: channel)
    }
}

/// Writes the answers of a connection's pushes as their tasks finish them: one hop to the event loop for all
/// the answers that are ready by then (a commit resumes a batch of pushes at once), and one flush for them
/// all. It sits between the socket and HTTP/2, where it holds the flushes that writing each stream's answer
/// asks for until the last one is written.
final class AnswerWriter: ChannelOutboundHandler, @unchecked Sendable {
    // Unchecked: `waiting` is under its lock; the rest is touched on the connection's event loop only (the
    // handler's callbacks, and `writeWaiting`, which `write` sends there).
    typealias OutboundIn = Any

    /// Where an answer goes: the handler of the push's stream, on its connection's event loop.
    typealias Target = NIOLoopBound<(handler: any SenderAnswerTarget, context: ChannelHandlerContext)>

    private let eventLoop: any EventLoop
    /// Where the connection's pushes run: on its event loop.
    let pushExecutor: EventLoopTaskExecutor
    /// The answers waiting for the event loop; a hop is under way while there are some.
    private let waiting = Mutex<[(SenderAnswer, Target)]>([])
    private var context: ChannelHandlerContext?
    private var isHolding = false
    private var flushAsked = false

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
        pushExecutor = EventLoopTaskExecutor(eventLoop)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func flush(context: ChannelHandlerContext) {
        if isHolding { flushAsked = true } else { context.flush() }
    }

    /// From any thread.
    func write(_ answer: SenderAnswer, on stream: Target) {
        let first = waiting.withLock { waiting in
            waiting.append((answer, stream))
            return waiting.count == 1
        }
        if first { eventLoop.execute { self.writeWaiting() } }
    }

    private func writeWaiting() {
        let ready = waiting.withLock { waiting in
            defer { waiting = [] }
            return waiting
        }
        isHolding = true
        for (answer, stream) in ready { stream.value.handler.write(answer, context: stream.value.context) }
        isHolding = false
        if flushAsked {
            flushAsked = false
            context?.flush()
        }
    }
}

/// What Hummingbird's HTTP/2 channel did for a connection, for connections whose pushes ``SenderStreams`` serves:
/// closes a connection idle for `idleTimeout` (no stream busy: a stream whose answer waits only for the
/// client's window is idle, ``StreamLifetime``), and closes gracefully when told to quiesce (a server shutting
/// down, a fault's GOAWAY, ``IdleDeadline``): a GOAWAY naming the last possible stream and a PING, then, once
/// the PING comes back, a GOAWAY naming the last stream opened; the connection closes when its open streams are
/// done, or after `gracefulCloseTimeout` (also when the PING does not come back in that time). A fault's ``GoAwayNow``
/// is one GOAWAY with its debug data, naming the last stream opened, and nothing after it (clients such as
/// Python's h2 drop a read in which a frame follows a GOAWAY, the answer before it included); the client
/// closes the connection then, or `gracefulCloseTimeout` does.
final class HTTP2ConnectionManager: ChannelDuplexHandler {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private enum Phase {
        case active
        /// The first GOAWAY is sent; the second goes when the PING with this data comes back.
        case closing(ping: HTTP2PingData, sentSecondGoAway: Bool)
        /// A fault's GOAWAY is sent: the client closes the connection, or the grace period ends it (closing at
        /// once could reset the connection under data the client has not read yet: the answer and the GOAWAY).
        case wentAway
        case closed
    }

    private let eventLoop: any EventLoop
    private let idleTimeout: TimeAmount?
    private let gracefulCloseTimeout: TimeAmount
    private var phase = Phase.active
    private var openStreams = 0
    /// Streams being read or answered (``ConnectionStreams``): the idle timeout counts while there are none.
    private var busyStreams = 0
    private var lastStreamID = HTTP2StreamID.rootStream
    private var idleTimer: Scheduled<Void>?
    private var gracefulCloseTimer: Scheduled<Void>?
    private var context: ChannelHandlerContext?
    private var inReadLoop = false
    private var flushPending = false
    /// In this turn of the event loop: the errors fired, and the streams closed with an error code
    /// (``errorCaught(context:error:)`` weighs them once the turn is over).
    private var errorsInTurn = 0
    private var errorResetsInTurn = 0
    private var turnCheckScheduled = false

    init(eventLoop: any EventLoop, idleTimeout: TimeAmount?, gracefulCloseTimeout: TimeAmount) {
        self.eventLoop = eventLoop
        self.idleTimeout = idleTimeout
        self.gracefulCloseTimeout = gracefulCloseTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        scheduleIdleTimer()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        idleTimer?.cancel()
        gracefulCloseTimer?.cancel()
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        inReadLoop = true
        if case .ping(let ping, ack: true) = unwrapInboundIn(data).payload, case .closing(let sent, false) = phase, sent == ping {
            phase = .closing(ping: sent, sentSecondGoAway: true)
            sendGoAway(lastStreamID: lastStreamID, context: context)
            closeWhenDone(context: context)
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        inReadLoop = false
        if flushPending {
            flushPending = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The HTTP/2 handler tells the pipeline when streams open and close: pushes' and the others' alike.
        if let created = event as? NIOHTTP2StreamCreatedEvent {
            streamCreated(created.streamID)
        } else if let closed = event as? StreamClosedEvent {
            if let reason = closed.reason, reason != .noError, reason != .cancel {
                errorResetsInTurn += 1
                checkErrorsAfterTurn(context: context)
            }
            streamClosed()
        } else if event is ChannelShouldQuiesceEvent {
            closeGracefully(context: context)
        } else if let goAway = event as? GoAwayNow {
            goAwayAtOnce(debugData: goAway.debugData, context: context)
        } else if let event = event as? ChannelEvent, event == .inputClosed {
            // The client sends no more: nothing more can be asked on this connection.
            switch phase {
            case .closed, .closing(_, sentSecondGoAway: true), .wentAway:
                break
            case .active, .closing:
                sendGoAway(lastStreamID: lastStreamID, errorCode: .connectError, debug: "input_closed", context: context)
            }
            phase = .closed
            context.flush()
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// NIO's HTTP/2 handler fires the same bare error for a stream error (a malformed request: it has reset that one
    /// stream, and the connection goes on, RFC 9113 §5.4.2) and for a connection error (it has sent GOAWAY, and the
    /// connection must close, §5.4.1). A stream error's reset reaches this handler in the same turn of the event
    /// loop as its error, as a ``StreamClosedEvent`` with the error's code. So the connection closes once the turn
    /// is over, unless each error had such a reset. Closing at every error would take the answers of the
    /// connection's other pushes with it, and a client resending them would deliver them twice.
    ///
    /// A client that resets streams with an error code of its own in the turn of a connection error keeps the
    /// connection past that turn: it has the GOAWAY, and the connection's idle timeout ends it.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        errorsInTurn += 1
        checkErrorsAfterTurn(context: context)
    }

    private func checkErrorsAfterTurn(context: ChannelHandlerContext) {
        guard !turnCheckScheduled else { return }
        turnCheckScheduled = true
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        context.eventLoop.execute {
            let manager = bound.value
            let isConnectionError = manager.errorsInTurn > manager.errorResetsInTurn
            (manager.errorsInTurn, manager.errorResetsInTurn, manager.turnCheckScheduled) = (0, 0, false)
            if isConnectionError { manager.context?.close(promise: nil) }
        }
    }

    private func streamCreated(_ id: HTTP2StreamID) {
        openStreams += 1
        lastStreamID = id
    }

    private func streamClosed() {
        openStreams -= 1
        guard openStreams == 0, case .closing(_, sentSecondGoAway: true) = phase else { return }
        phase = .closed
        context?.flush()
        context?.close(promise: nil)
    }

    func streamBusy() {
        busyStreams += 1
        idleTimer?.cancel()
        idleTimer = nil
    }

    func streamIdle() {
        busyStreams -= 1
        if busyStreams == 0, case .active = phase { scheduleIdleTimer() }
    }

    private func scheduleIdleTimer() {
        guard let idleTimeout, let context else { return }
        idleTimer?.cancel()
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        idleTimer = context.eventLoop.scheduleTask(in: idleTimeout) {
            let manager = bound.value
            if let context = manager.context { manager.closeGracefully(context: context) }
        }
    }

    private func closeGracefully(context: ChannelHandlerContext) {
        guard case .active = phase else { return }
        let ping = HTTP2PingData(withInteger: .random(in: .min ... .max))
        phase = .closing(ping: ping, sentSecondGoAway: false)
        context.write(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: .maxID, errorCode: .noError, opaqueData: nil))), promise: nil)
        context.write(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .ping(ping, ack: false))), promise: nil)
        flushSoon(context: context)
        // A client that does not answer the PING (one that reads nothing, say) is not waited for longer.
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        gracefulCloseTimer = context.eventLoop.scheduleTask(in: gracefulCloseTimeout) { bound.value.close(promise: nil) }
    }

    private func goAwayAtOnce(debugData: ByteBuffer, context: ChannelHandlerContext) {
        switch phase {
        case .closed, .closing(_, sentSecondGoAway: true), .wentAway:
            return
        case .active, .closing:
            break
        }
        phase = .wentAway
        let frame = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: lastStreamID, errorCode: .noError, opaqueData: debugData))
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        gracefulCloseTimer = context.eventLoop.scheduleTask(in: gracefulCloseTimeout) { bound.value.close(promise: nil) }
    }

    /// After the last GOAWAY: closes now if no stream is open, else once they are done or the grace period ends.
    private func closeWhenDone(context: ChannelHandlerContext) {
        if openStreams == 0 {
            phase = .closed
            // What was written goes before the close (a flush put off to the read's end would not).
            context.flush()
            context.close(promise: nil)
        } else {
            gracefulCloseTimer?.cancel()
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            gracefulCloseTimer = context.eventLoop.scheduleTask(in: gracefulCloseTimeout) { bound.value.close(promise: nil) }
        }
    }

    private func sendGoAway(lastStreamID: HTTP2StreamID, errorCode: NIOHTTP2.HTTP2ErrorCode = .noError, debug: String? = nil, context: ChannelHandlerContext) {
        let frame = HTTP2Frame(
            streamID: .rootStream,
            payload: .goAway(lastStreamID: lastStreamID, errorCode: errorCode, opaqueData: debug.map { context.channel.allocator.buffer(string: $0) }))
        context.write(wrapOutboundOut(frame), promise: nil)
        flushSoon(context: context)
    }

    private func flushSoon(context: ChannelHandlerContext) {
        if inReadLoop { flushPending = true } else { context.flush() }
    }
}

/// The `Date` of answers written outside Hummingbird, as it writes them (RFC 9110's IMF-fixdate), made once a
/// second.
enum ResponseDate {
    private static let cache = Mutex<(second: Int, text: String)>((second: -1, text: ""))

    static var now: String {
        let second = Int(Date().timeIntervalSince1970)
        return cache.withLock { cache in
            if cache.second != second { cache = (second, format(second)) }
            return cache.text
        }
    }

    private static func format(_ second: Int) -> String {
        var seconds = time_t(second)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
