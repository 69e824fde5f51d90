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
struct PortChannel: HTTPChannelHandler {
    enum Negotiated: Sendable {
        case http1(HTTP1Channel.Value)
        case http2(PortHTTP2Connection)
    }

    struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<Negotiated>
        let channel: any Channel
    }

    private let http1: HTTP1Channel
    /// What answers pushes without Hummingbird, over either version.
    private let pushes: PortHTTP2Connection.Configuration
    private let tls: NIOSSLContext?
    private let connections: ConnectionLimit
    private let firstBytesTimeout: TimeAmount
    private let requestTimeout: TimeAmount
    private let writeTimeout: TimeAmount

    var responder: HTTPChannelHandler.Responder { http1.responder }

    /// - Parameters:
    ///   - tlsConfiguration: TLS for the port, or `nil` for cleartext.
    ///   - connections: the count of open connections, shared by the whole server.
    ///   - provider: the provider endpoint, which answers pushes on the connection's event loop, before the router
    ///     (``PortHTTP2Connection``, ``SenderHTTP1Handler``).
    ///   - senderRoutes: the routes the other senders registered (``SenderRoute``), answered there too.
    init(
        responder: @escaping HTTPChannelHandler.Responder, tlsConfiguration: TLSConfiguration?,
        limits: ServerConfiguration.Limits, connections: ConnectionLimit, provider: ProviderEndpoint, senderRoutes: [any SenderRoute], servesAcceptRoute: Bool
    ) throws {
        self.connections = connections
        firstBytesTimeout = TimeAmount(limits.firstBytesTimeout)
        // Every request has an end: it must arrive whole within the request timeout, and each write of its answer
        // be taken by the client within the write timeout, whichever HTTP version and whoever answers it
        // (``StreamLifetime``, ``HTTP1RequestLifetime``). An HTTP/1.1 connection that stops sending, between
        // requests, is closed after the request timeout too (Hummingbird's idle timeout), and so is an HTTP/2
        // connection with no stream busy that has not had a push accepted yet (``IdleDeadline``). Once it has, it
        // may stay with no stream busy for the idle timeout: APNs clients keep their connections between pushes.
        // A shutdown waits a bounded time for clients to leave.
        requestTimeout = TimeAmount(limits.requestTimeout)
        writeTimeout = TimeAmount(limits.writeTimeout)
        http1 = HTTP1Channel(responder: responder, configuration: .init(idleTimeout: requestTimeout))
        pushes = .init(
            endpoint: provider, senderRoutes: senderRoutes, servesAcceptRoute: servesAcceptRoute, connectionIdleTimeout: limits.connectionIdleTimeout,
            requestTimeout: limits.requestTimeout, writeTimeout: limits.writeTimeout, maximumHeldBytes: limits.heldAnswerBytesPerConnection)
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
                    return channel.eventLoop.makeCompletedFuture { [pushes, requestTimeout] in
                        let deadline = IdleDeadline(timeout: requestTimeout)
                        let connection = try PortHTTP2Connection.setup(channel: channel, configuration: pushes, deadline: deadline, logger: logger)
                        try channel.pipeline.syncOperations.addHandler(deadline)
                        return .http2(connection)
                    }
                }
                return http1.setup(channel: channel, logger: logger).flatMapThrowing { [pushes, requestTimeout, writeTimeout] connection in
                    // Pushes are answered in front of Hummingbird's async channel, after the connection's state and
                    // the requests' deadlines.
                    let operations = channel.pipeline.syncOperations
                    let state = try operations.handler(type: HTTPConnectionStateHandler.self)
                    let answers = AnswerWriter(eventLoop: channel.eventLoop)
                    let clientConnection = ClientConnection()
                    try operations.addHandler(
                        SenderHTTP1Handler(
                            endpoint: pushes.endpoint, senderRoutes: pushes.senderRoutes, servesAcceptRoute: pushes.servesAcceptRoute, answers: answers,
                            clientConnection: clientConnection, logger: logger),
                        position: .after(state))
                    // Last, where no request passes: it is only looked up.
                    try operations.addHandler(ClientConnection.Holder(clientConnection))
                    try operations.addHandler(answers, position: .after(state))
                    try operations.addHandler(HTTP1RequestLifetime(requestTimeout: requestTimeout, writeTimeout: writeTimeout), position: .after(state))
                    return .http1(connection)
                }
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
            case .http2(let connection):
                // The streams that are not pushes, each answered by the router as Hummingbird's HTTP/2 channel would.
                await withDiscardingTaskGroup { group in
                    for await stream in connection.handedOff {
                        group.addTask { await handleHTTP(asyncChannel: stream, logger: logger) }
                    }
                }
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
    private let configure: (_ isHTTP2: Bool) -> EventLoopFuture<PortChannel.Negotiated>
    private let completion: (Result<PortChannel.Negotiated, any Error>) -> Void
    private var buffered: ByteBuffer?
    private var configuring = false
    private var completed = false
    private var timeout: Scheduled<Void>?

    init(
        firstBytesTimeout: TimeAmount,
        configure: @escaping (_ isHTTP2: Bool) -> EventLoopFuture<PortChannel.Negotiated>,
        completion: @escaping (Result<PortChannel.Negotiated, any Error>) -> Void
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

    private func finish(_ result: Result<PortChannel.Negotiated, any Error>) {
        guard !completed else { return }
        completed = true
        completion(result)
    }
}
