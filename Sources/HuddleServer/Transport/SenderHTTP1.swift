import HTTPTypes
import Logging
import NIOCore
import NIOHTTPTypes

/// Answers the pushes of an HTTP/1.1 connection on its event loop (``SenderRequestReading``), in front of
/// Hummingbird's async channel, which gets every other request.
///
/// Answers go out in the order of the requests, pipelined ones included: while a request handed to
/// Hummingbird is unanswered, every request that follows goes to Hummingbird too; while a push is being
/// answered, what follows it waits here and is read again once the push's answer is written.
final class SenderHTTP1Handler: ChannelDuplexHandler, SenderAnswerTarget {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum State {
        case idle
        case reading(SenderRequestReading)
        case answering
    }

    private var pushes: SenderRoutes
    private var state = State.idle
    /// Requests handed to Hummingbird whose answers have not ended yet.
    private var handedOff = 0
    /// What came while a push was being answered: at most what one read brings, since no more is read meanwhile.
    private var held: [NIOAny] = []
    /// A read asked for while a push was being answered, to ask for once it is.
    private var readWaiting = false
    /// The message being answered came with `Connection: close`.
    private var closesAfterAnswer = false

    init(
        endpoint: ProviderEndpoint, senderRoutes: [any SenderRoute], servesAcceptRoute: Bool, answers: AnswerWriter, clientConnection: ClientConnection,
        logger: Logger
    ) {
        pushes = SenderRoutes(
            endpoint: endpoint, registered: senderRoutes, servesAcceptRoute: servesAcceptRoute, answers: answers, isHTTP2: false, logger: logger,
            clientConnection: clientConnection)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        pushes.client = ProviderExchange.client(of: context.channel)
    }

    /// Whether a request's `Connection` fields name the `close` option: a comma-separated list of tokens, each compared
    /// whole and without case (RFC 9110 §7.6.1), in any of the request's `Connection` lines.
    static func asksToClose(_ fields: HTTPFields) -> Bool {
        fields[values: .connection].contains { line in
            line.split(separator: ",").contains { token in
                // Optional whitespace is spaces and tabs (RFC 9110 §5.6.3).
                let word = token.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }
                return word.count == 5 && String(decoding: word.reversed(), as: UTF8.self).lowercased() == "close"
            }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .answering:
            held.append(data)
        case .idle:
            let part = unwrapInboundIn(data)
            if case .head(let head) = part {
                if handedOff == 0, let reading = pushes.reading(head) {
                    // HTTP/1.1's `Connection: close` (RFC 9112 §9.6): this is the connection's last request.
                    closesAfterAnswer = Self.asksToClose(head.headerFields)
                    state = .reading(reading)
                    return
                }
                handedOff += 1
            }
            context.fireChannelRead(data)
        case .reading(var reading):
            // The state lets go of the body first, so that it grows in place.
            state = .answering
            if !pushes.read(unwrapInboundIn(data), into: &reading, target: self, context: context) { state = .reading(reading) }
        }
    }

    /// Reads nothing more from the socket while a push is being answered once the client has sent something past it:
    /// a client pipelining requests behind it waits for its answer (back-pressure, as Hummingbird's channel applies
    /// it), instead of filling `held`, which keeps at most one read's worth. A client that waits for its answer, as
    /// nearly all do, sends nothing meanwhile, and the socket stays registered for reading: holding the read would
    /// cost two changes of its registration (`epoll_ctl`) per push.
    func read(context: ChannelHandlerContext) {
        if isAnswering, !held.isEmpty { readWaiting = true } else { context.read() }
    }

    private var isAnswering: Bool {
        if case .answering = state { true } else { false }
    }

    /// Hummingbird's answers: the end of one is the end of a request handed off.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { handedOff -= 1 }
        context.write(data, promise: promise)
    }

    func write(_ answer: SenderAnswer, context: ChannelHandlerContext) {
        // A channel closed meanwhile (its handlers are removed once it is inactive): nothing to answer.
        guard context.channel.isActive else { return }
        var answer = answer
        // A request whose body was cut short leaves the rest of it on the connection, which therefore ends with
        // this answer (``HTTP1RequestLifetime`` says so and closes its sending side): the state stays `.answering`,
        // so what arrives is held and, once something is, nothing more is read; the client's own sending stalls,
        // costing nothing more, until it closes or the request timeout does.
        if answer.bodyCutShort {
            answer.write(to: context)
            held = []
            return
        }
        // A connection told to go away, or whose client said this was its last request, closes once this answer is
        // written, and says so.
        if answer.goesAway || closesAfterAnswer {
            answer.headers[.connection] = "close"
            context.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
        answer.write(to: context)
        state = .idle
        let held = held
        self.held = []
        for data in held { channelRead(context: context, data: data) }
        if !held.isEmpty { context.fireChannelReadComplete() }
        // Unless what was held began another push's answer, read on (also to finish a request held in part).
        if readWaiting, !isAnswering {
            readWaiting = false
            context.read()
        }
    }
}
