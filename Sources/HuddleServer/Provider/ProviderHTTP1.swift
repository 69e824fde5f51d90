import HTTPTypes
import Logging
import NIOCore
import NIOHTTPTypes

/// Answers the pushes of an HTTP/1.1 connection on its event loop (``ProviderRequestReading``), in front of
/// Hummingbird's async channel, which gets every other request.
///
/// Answers go out in the order of the requests, pipelined ones included: while a request handed to
/// Hummingbird is unanswered, every request that follows goes to Hummingbird too; while a push is being
/// answered, what follows it waits here and is read again once the push's answer is written.
final class ProviderHTTP1Handler: ChannelDuplexHandler, ProviderAnswerTarget {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum State {
        case idle
        case reading(ProviderRequestReading)
        case answering
    }

    private let endpoint: ProviderEndpoint
    private let servesAcceptRoute: Bool
    private let answers: AnswerWriter
    private let logger: Logger
    private var state = State.idle
    /// Requests handed to Hummingbird whose answers have not ended yet.
    private var handedOff = 0
    /// Whether the request now being read goes to Hummingbird.
    private var handingOff = false
    /// What came while a push was being answered.
    private var held: [NIOAny] = []
    private var removed = false

    init(endpoint: ProviderEndpoint, servesAcceptRoute: Bool, answers: AnswerWriter, logger: Logger) {
        self.endpoint = endpoint
        self.servesAcceptRoute = servesAcceptRoute
        self.answers = answers
        self.logger = logger
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        removed = true
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .answering:
            held.append(data)
        case .idle:
            let part = unwrapInboundIn(data)
            if case .head(let head) = part {
                if handedOff == 0, let reading = ProviderRequestReading(head, endpoint: endpoint, servesAcceptRoute: servesAcceptRoute) {
                    state = .reading(reading)
                    return
                }
                handedOff += 1
            }
            context.fireChannelRead(data)
        case .reading(var reading):
            switch unwrapInboundIn(data) {
            case .head:
                context.close(promise: nil)
            case .body(var chunk):
                // The state lets go of the body first, so that it grows in place.
                state = .answering
                reading.append(&chunk)
                state = .reading(reading)
            case .end:
                state = .answering
                reading.answer(
                    endpoint: endpoint, target: self, context: context, connectionChannel: context.channel, isHTTP2: false,
                    answers: answers, logger: logger)
            }
        }
    }

    /// Hummingbird's answers: the end of one is the end of a request handed off.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { handedOff -= 1 }
        context.write(data, promise: promise)
    }

    func write(_ answer: ProviderAnswer, context: ChannelHandlerContext) {
        guard !removed, context.channel.isActive else { return }
        var answer = answer
        // A connection told to go away closes once this answer is written, and says so.
        if answer.goesAway {
            answer.headers[.connection] = "close"
            context.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
        answer.write(to: context)
        state = .idle
        let held = held
        self.held = []
        for data in held { channelRead(context: context, data: data) }
        if !held.isEmpty { context.fireChannelReadComplete() }
    }
}
