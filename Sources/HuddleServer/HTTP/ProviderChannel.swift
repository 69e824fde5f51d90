import HTTPTypes
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOHTTPTypes
import NIOSSL
import Synchronization

/// A server channel that speaks HTTP/1.1 and HTTP/2 on one port, with or without TLS, choosing by what
/// the client sends first.
///
/// APNs clients disagree about how they start HTTP/2: most negotiate `h2` with ALPN, Python's aioapns
/// offers no ALPN and sends the HTTP/2 preface straight after the handshake, and local tools use h2c
/// with prior knowledge on a plain port. Looking at the first bytes (the preface
/// `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`, or an HTTP/1 request line) serves them all.
struct ProviderChannel: HTTPChannelHandler {
    enum Negotiated: Sendable {
        case http1(HTTP1Channel.Value)
        case http2(HTTP2Channel.Value)
    }

    struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<Negotiated>
        let channel: any Channel
    }

    private let http1: HTTP1Channel
    private let http2: HTTP2Channel
    private let tls: NIOSSLContext?
    private let connections: ConnectionLimit
    private let firstBytesTimeout: TimeAmount
    private let requestTimeout: TimeAmount

    var responder: HTTPChannelHandler.Responder { http1.responder }

    /// - Parameters:
    ///   - tlsConfiguration: TLS for the port, or `nil` for cleartext.
    ///   - connections: the count of open connections, shared by the whole server.
    init(
        responder: @escaping HTTPChannelHandler.Responder, tlsConfiguration: TLSConfiguration?,
        limits: ServerConfiguration.Limits, connections: ConnectionLimit
    ) throws {
        self.connections = connections
        firstBytesTimeout = TimeAmount(limits.firstBytesTimeout)
        // An HTTP/1.1 connection that stops sending, in the middle of its headers or between requests, is
        // closed soon (a response being written is not idleness). So is an HTTP/2 stream whose body stops
        // coming, and an HTTP/2 connection with no stream open that has not had a push accepted yet
        // (``IdleDeadline``). Once it has, it may stay with no stream open for the idle timeout: APNs clients
        // keep their connections between pushes. A shutdown waits a bounded time for clients to leave.
        requestTimeout = TimeAmount(limits.requestIdleTimeout)
        http1 = HTTP1Channel(responder: responder, configuration: .init(idleTimeout: requestTimeout))
        http2 = HTTP2Channel(
            responder: responder,
            configuration: .init(
                idleTimeout: limits.connectionIdleTimeout, gracefulCloseTimeout: .seconds(5),
                streamConfiguration: .init(additionalChannelHandlers: [IdleDeadline.StreamSignal()], idleTimeout: requestTimeout)))
        if var tlsConfiguration {
            // Offer h2 to clients that negotiate; the preface decides for those that do not.
            tlsConfiguration.applicationProtocols = ["h2", "http/1.1"]
            tls = try NIOSSLContext(configuration: tlsConfiguration)
        } else {
            tls = nil
        }
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard connections.open(closingWith: channel.closeFuture) else {
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(ConnectionLimit.Refused())
        }
        return channel.eventLoop.makeCompletedFuture {
            let promise = channel.eventLoop.makePromise(of: Negotiated.self)
            let sniffer = HTTPVersionSniffer(firstBytesTimeout: firstBytesTimeout) { isHTTP2 in
                if isHTTP2 {
                    return http2.setup(channel: channel, logger: logger).flatMapThrowing { [requestTimeout] connection in
                        try channel.pipeline.syncOperations.addHandler(IdleDeadline(timeout: requestTimeout))
                        return .http2(connection)
                    }
                }
                return http1.setup(channel: channel, logger: logger).map { .http1($0) }
            } completion: { result in
                promise.completeWith(result)
            }
            do {
                if let tls {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
                }
                try channel.pipeline.syncOperations.addHandler(sniffer)
            } catch {
                // The channel closed before its handlers could be added: nothing will complete the promise.
                promise.fail(error)
                throw error
            }
            return Value(negotiated: promise.futureResult, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.negotiated.get() {
            case .http1(let connection): await http1.handle(value: connection, logger: logger)
            case .http2(let connection): await http2.handle(value: connection, logger: logger)
            }
        } catch {
            logger.debug("connection closed before it chose an HTTP version: \(error)")
        }
    }
}

/// Holds a connection's first bytes until they show whether it speaks HTTP/2, then lets the chosen
/// protocol's handlers in and steps aside.
final class HTTPVersionSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// A connection that has not shown its protocol by then is closed: nothing else would time it out.
    private let firstBytesTimeout: TimeAmount
    private let configure: (_ isHTTP2: Bool) -> EventLoopFuture<ProviderChannel.Negotiated>
    private let completion: (Result<ProviderChannel.Negotiated, any Error>) -> Void
    private var buffered: ByteBuffer?
    private var configuring = false
    private var completed = false
    private var timeout: Scheduled<Void>?

    init(
        firstBytesTimeout: TimeAmount,
        configure: @escaping (_ isHTTP2: Bool) -> EventLoopFuture<ProviderChannel.Negotiated>,
        completion: @escaping (Result<ProviderChannel.Negotiated, any Error>) -> Void
    ) {
        self.firstBytesTimeout = firstBytesTimeout
        self.configure = configure
        self.completion = completion
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        timeout = context.eventLoop.scheduleTask(in: firstBytesTimeout) {
            loopBound.value.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timeout?.cancel()
        // Removed by a close before any protocol was chosen (the close tears the pipeline down, and
        // channelInactive may not reach this handler first): the connection is over.
        if !configuring { finish(.failure(ChannelError.eof)) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if buffered == nil { buffered = incoming } else { buffered!.writeBuffer(&incoming) }
        guard !configuring, let bytes = buffered?.readableBytesView else { return }
        let compared = min(bytes.count, Self.preface.count)
        let matchesSoFar = bytes.prefix(compared).elementsEqual(Self.preface.prefix(compared))
        if !matchesSoFar {
            choose(isHTTP2: false, context: context)
        } else if compared == Self.preface.count {
            choose(isHTTP2: true, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(.failure(ChannelError.eof))
        context.fireChannelInactive()
    }

    /// A client that half-closes before sending a request, or a server shutting down while a connection
    /// has not chosen its protocol yet: there is nothing to answer, so the connection closes. (Once a
    /// protocol is chosen, these events are the chosen handlers' business.)
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if !configuring, event is ChannelShouldQuiesceEvent || (event as? ChannelEvent) == .inputClosed {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(.failure(error))
        context.close(promise: nil)
    }

    private func choose(isHTTP2: Bool, context: ChannelHandlerContext) {
        configuring = true
        configure(isHTTP2).hop(to: context.eventLoop).assumeIsolated().whenComplete { result in
            switch result {
            case .success:
                // The chosen handlers now sit after this one: hand them what arrived, then leave.
                if let buffered = self.buffered {
                    self.buffered = nil
                    context.fireChannelRead(self.wrapInboundOut(buffered))
                    context.fireChannelReadComplete()
                }
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            case .failure:
                context.close(promise: nil)
            }
            self.finish(result)
        }
    }

    private func finish(_ result: Result<ProviderChannel.Negotiated, any Error>) {
        guard !completed else { return }
        completed = true
        completion(result)
    }
}

/// Holds an HTTP/2 connection to `timeout` (`--request-timeout`) of idleness until a push is accepted on it.
///
/// HTTP/2's own idle timeout (`--idle-timeout`) is long, because APNs clients keep their connections between
/// pushes, and counts only while no stream is open. Granting it to every connection would let a stranger
/// hold a place under `--max-connections` that long with the preface alone, or with one cheap request. So
/// until a push is accepted on it (a 200 with an `apns-id`: a provider with a valid token gets one, or any
/// client under `--development`), a connection with no stream open is sent away after `timeout`: politely
/// (GOAWAY, as a shutdown does), then cut off if it stays. A stream under way (a page's live stream, a
/// request being answered) keeps it open. Each stream's ``StreamSignal`` tells the connection when it
/// opens, when a push on it is accepted, and when it closes.
final class IdleDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Any

    /// What a stream sends up its connection's pipeline.
    enum Signal {
        case opened, pushAccepted, closed
    }

    /// Sits in each HTTP/2 stream and tells the connection what happens to it.
    final class StreamSignal: ChannelOutboundHandler, RemovableChannelHandler {
        typealias OutboundIn = HTTPResponsePart
        typealias OutboundOut = HTTPResponsePart

        private static let apnsID = HTTPField.Name("apns-id")!

        func handlerAdded(context: ChannelHandlerContext) {
            context.channel.parent?.pipeline.fireUserInboundEventTriggered(Signal.opened)
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            context.channel.parent?.pipeline.fireUserInboundEventTriggered(Signal.closed)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if case .head(let response) = unwrapOutboundIn(data), response.status == .ok, response.headerFields[Self.apnsID] != nil {
                context.channel.parent?.pipeline.fireUserInboundEventTriggered(Signal.pushAccepted)
            }
            context.write(data, promise: promise)
        }
    }

    private let timeout: TimeAmount
    private var openStreams = 0
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        scheduleDeadline(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let signal = event as? Signal else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        switch signal {
        case .opened:
            openStreams += 1
            deadline?.cancel()
            deadline = nil
        case .closed:
            openStreams -= 1
            if openStreams == 0 { scheduleDeadline(context) }
        case .pushAccepted:
            // A provider: from now on HTTP/2's idle timeout alone applies.
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    private func scheduleDeadline(_ context: ChannelHandlerContext) {
        let channel = context.channel
        let timeout = timeout
        deadline = context.eventLoop.scheduleTask(in: timeout) {
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
            channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        }
    }
}

/// The count of a server's open connections, which refuses new ones past its maximum: each holds memory
/// and a file descriptor, and a client could otherwise open them until the process runs out.
final class ConnectionLimit: Sendable {
    struct Refused: Error {}

    let maximum: Int
    private let open = Atomic<Int>(0)
    /// When a refusal was last logged, so that a flood of connections does not flood the log too.
    private let lastWarning = Mutex<ContinuousClock.Instant?>(nil)
    private let logger: Logger

    init(maximum: Int, logger: Logger) {
        self.maximum = maximum
        self.logger = logger
    }

    /// Counts a new connection until `closed` completes; `false` (not counted) when the server is full.
    func open(closingWith closed: EventLoopFuture<Void>) -> Bool {
        let count = open.wrappingAdd(1, ordering: .relaxed).newValue
        guard count <= maximum else {
            open.wrappingSubtract(1, ordering: .relaxed)
            warnOfRefusal()
            return false
        }
        closed.whenComplete { _ in self.open.wrappingSubtract(1, ordering: .relaxed) }
        return true
    }

    var count: Int { open.load(ordering: .relaxed) }

    private func warnOfRefusal() {
        let now = ContinuousClock.now
        let shouldWarn = lastWarning.withLock { last in
            guard last.map({ now - $0 > .seconds(10) }) ?? true else { return false }
            last = now
            return true
        }
        if shouldWarn { logger.warning("refusing connections: \(maximum) are open, the most allowed (--max-connections)") }
    }
}
