import Foundation
import HTTPTypes
import HuddleCore
@testable import HuddleServer
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing

/// The senders' messages of an HTTP/1.1 connection, answered in front of Hummingbird's channel on the connection's event
/// loop (``SenderHTTP1Handler``), and the writer that joins the answers ready together into one flush (``AnswerWriter``),
/// on `EmbeddedChannel`s. `/bench/accept` is the message: answered at once, once its request has ended.
@Suite struct SenderHTTP1HandlerTests {
    /// The port's routes with an APNs endpoint on an in-memory store and the benchmark route that accepts at once (which
    /// ``SenderStreamsTests`` uses too).
    static func routes(answers: AnswerWriter, isHTTP2: Bool = false) -> SenderRoutes {
        let store = InMemoryNotificationStore()
        let endpoint = ProviderEndpoint(
            centers: DeviceCenters(store: store, notificationsPerApp: 64), store: store, keys: SigningKeyCache(store: store),
            requiresProviderToken: true, uncheckedRequestHosts: AllowedHosts(publicHosts: [], listeningHost: "localhost"),
            servesCheckOnlyRoute: false,
            intake: SenderIntake(
                log: SenderRequestLog(), tls: false, counterLabel: "test_requests", refusalDimension: "reason",
                acceptedCounter: { ProviderEndpoint.acceptedCounter }, clock: { Date() }),
            faults: SenderFaults(), readsClientCertificates: false, clock: { Date() })
        return SenderRoutes(
            endpoint: endpoint, registered: [], servesAcceptRoute: true, answers: answers, isHTTP2: isHTTP2, logger: Logger(label: "test"),
            clientConnection: ClientConnection())
    }

    static func connection() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        let answers = AnswerWriter(eventLoop: channel.eventLoop)
        let routes = routes(answers: answers)
        try channel.pipeline.syncOperations.addHandlers([
            answers,
            SenderHTTP1Handler(
                endpoint: routes.endpoint, senderRoutes: [], servesAcceptRoute: true, answers: answers, clientConnection: ClientConnection(),
                logger: Logger(label: "test")),
        ])
        try channel.connect(to: .init(unixDomainSocketPath: "/http1")).wait()
        return channel
    }

    static func head(_ path: String, method: HTTPRequest.Method = .post) -> HTTPRequestPart {
        .head(HTTPRequest(method: method, scheme: nil, authority: "localhost", path: path))
    }

    /// What the connection wrote: "200", "body 10", "end".
    static func written(_ channel: EmbeddedChannel) throws -> [String] {
        var parts: [String] = []
        while let part = try channel.readOutbound(as: HTTPResponsePart.self) {
            switch part {
            case .head(let head): parts.append("\(head.status.code)")
            case .body(let body): parts.append("body \(body.readableBytes)")
            case .end: parts.append("end")
            }
        }
        return parts
    }

    @Test func aMessageIsAnsweredInFrontOfTheRouterAndGoesNoFurther() throws {
        let channel = try Self.connection()
        try channel.writeInbound(Self.head("/bench/accept"))
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "{}")))
        #expect(try Self.written(channel).isEmpty)
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.written(channel) == ["200", "end"])
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil)
    }

    /// A client's `Connection: close` makes its message the connection's last: the answer says so, and the connection
    /// is told to quiesce (Hummingbird's state handler then closes it once the answer is written).
    @Test func aMessageWithConnectionCloseEndsTheConnection() throws {
        let channel = try Self.connection()
        let events = ConnectionDeadlineTests.EventRecorder()
        try channel.pipeline.syncOperations.addHandler(events)
        var head = HTTPRequest(method: .post, scheme: nil, authority: "localhost", path: "/bench/accept")
        head.headerFields[.connection] = "close"
        try channel.writeInbound(HTTPRequestPart.head(head))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        guard case .head(let answer)? = try channel.readOutbound(as: HTTPResponsePart.self) else {
            Issue.record("no answer")
            return
        }
        #expect(answer.headerFields[.connection] == "close")
        #expect(events.quiesced == 1)

        // Without it, the connection stays.
        let other = try Self.connection()
        try other.writeInbound(Self.head("/bench/accept"))
        try other.writeInbound(HTTPRequestPart.end(nil))
        guard case .head(let kept)? = try other.readOutbound(as: HTTPResponsePart.self) else {
            Issue.record("no answer")
            return
        }
        #expect(kept.headerFields[.connection] == nil)
    }

    /// `Connection` is a list of tokens: `close` is one of them, whole and in any case, on any of the request's lines.
    @Test func connectionCloseIsATokenOfTheList() {
        func fields(_ lines: [String]) -> HTTPFields {
            HTTPFields(lines.map { HTTPField(name: .connection, value: $0) })
        }
        #expect(SenderHTTP1Handler.asksToClose(fields(["close"])))
        #expect(SenderHTTP1Handler.asksToClose(fields(["keep-alive, Close"])))
        #expect(SenderHTTP1Handler.asksToClose(fields(["upgrade", " CLOSE "])))
        #expect(!SenderHTTP1Handler.asksToClose(fields([])))
        #expect(!SenderHTTP1Handler.asksToClose(fields(["keep-alive"])))
        #expect(!SenderHTTP1Handler.asksToClose(fields(["x-closed, enclose"])))
    }

    @Test func anyOtherRequestGoesToTheRouter() throws {
        let channel = try Self.connection()
        try channel.writeInbound(Self.head("/v1/devices", method: .get))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == Self.head("/v1/devices", method: .get))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == .end(nil))
    }

    /// Answers go out in the order of the requests: a message pipelined behind a request the router has not answered
    /// goes to the router too; once that answer has ended, the next message is answered here again.
    @Test func aMessageBehindAnUnansweredRouterRequestGoesToTheRouterToo() throws {
        let channel = try Self.connection()
        try channel.writeInbound(Self.head("/v1/devices", method: .get))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        try channel.writeInbound(Self.head("/bench/accept"))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        var passed: [HTTPRequestPart] = []
        while let part = try channel.readInbound(as: HTTPRequestPart.self) { passed.append(part) }
        #expect(passed.count == 4)
        #expect(try Self.written(channel).isEmpty)
        // The router answers both.
        for _ in 0..<2 {
            channel.write(HTTPResponsePart.head(HTTPResponse(status: .ok)), promise: nil)
            try channel.writeAndFlush(HTTPResponsePart.end(nil)).wait()
        }
        _ = try Self.written(channel)
        try channel.writeInbound(Self.head("/bench/accept"))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.written(channel) == ["200", "end"])
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil)
    }

    /// A body longer than any message is answered once it passes HTTP/2's initial window's worth, and nothing more of it
    /// goes anywhere: the connection ends with that answer.
    @Test func aBodyWithoutEndIsAnsweredAndWhatFollowsIsHeld() throws {
        let channel = try Self.connection()
        try channel.writeInbound(Self.head("/bench/accept"))
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(repeating: 0x61, count: 65_536)))
        #expect(try Self.written(channel) == ["200", "end"])
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(repeating: 0x61, count: 10)))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil)
        #expect(try Self.written(channel).isEmpty)
    }

    // MARK: The answer writer

    /// Counts the flushes that reach the socket.
    final class FlushCounter: ChannelOutboundHandler {
        typealias OutboundIn = Any
        var flushes = 0

        func flush(context: ChannelHandlerContext) {
            flushes += 1
            context.flush()
        }
    }

    /// Writes a stream's answer as its handler would, flushing it.
    final class Stream: SenderAnswerTarget {
        func write(_ answer: SenderAnswer, context: ChannelHandlerContext) {
            answer.write(to: context)
        }
    }

    /// Answers finished together by their tasks (a commit resumes a batch of pushes at once) go out with one flush.
    @Test func answersReadyTogetherGoOutWithOneFlush() throws {
        let channel = EmbeddedChannel()
        let counter = FlushCounter()
        let answers = AnswerWriter(eventLoop: channel.eventLoop)
        // The stream's handler is above the writer, whose flushes it holds.
        let streamHandler = FlushCounter()
        try channel.pipeline.syncOperations.addHandlers([counter, answers, streamHandler])
        let context = try channel.pipeline.syncOperations.context(handler: streamHandler)
        let target = AnswerWriter.Target((handler: Stream(), context: context), eventLoop: channel.eventLoop)
        for _ in 0..<3 { answers.write(SenderAnswer(status: .ok, headers: [:]), on: target) }
        #expect(counter.flushes == 0)
        channel.embeddedEventLoop.run()
        #expect(counter.flushes == 1)
        #expect(try Self.written(channel) == ["200", "end", "200", "end", "200", "end"])
    }
}
