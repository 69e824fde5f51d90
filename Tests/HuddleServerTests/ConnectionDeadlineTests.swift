import HTTPTypes
@testable import HuddleServer
import NIOCore
import NIOEmbedded
import NIOHTTP2
import NIOHTTPTypes
import Testing

/// The connection-wide handlers of the provider port, each on an `EmbeddedChannel` whose loop's clock the tests move:
/// HTTP/1.1's request and write deadlines (``HTTP1RequestLifetime``), the idle deadline of a connection no push was
/// accepted on (``IdleDeadline``), and HTTP/2's graceful and at-once GOAWAYs (``HTTP2ConnectionManager``).
@Suite struct ConnectionDeadlineTests {
    static let requestTimeout = TimeAmount.seconds(2)
    static let writeTimeout = TimeAmount.seconds(3)
    static let head = HTTPRequestPart.head(HTTPRequest(method: .post, scheme: nil, authority: "localhost", path: "/3/device/ab"))

    /// Records the inbound user events that reach the end of a pipeline.
    final class EventRecorder: ChannelInboundHandler {
        typealias InboundIn = Any
        var quiesced = 0

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if event is ChannelShouldQuiesceEvent { quiesced += 1 }
        }
    }

    static func http1() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: HTTP1RequestLifetime(requestTimeout: requestTimeout, writeTimeout: writeTimeout))
        try channel.connect(to: .init(unixDomainSocketPath: "/http1")).wait()
        return channel
    }

    static func answer(_ channel: EmbeddedChannel) throws {
        channel.write(HTTPResponsePart.head(HTTPResponse(status: .ok)), promise: nil)
        try channel.writeAndFlush(HTTPResponsePart.end(nil)).wait()
    }

    // MARK: HTTP/1.1

    @Test func anHTTP1RequestMustArriveWholeWithinItsDeadlineFromItsHead() throws {
        let channel = try Self.http1()
        try channel.writeInbound(Self.head)
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "{")))
        channel.embeddedEventLoop.advanceTime(by: Self.requestTimeout - .milliseconds(1))
        #expect(channel.isActive)
        // A body that trickles does not move the deadline: it is a total.
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "}")))
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
    }

    @Test func aPipelinedRequestsDeadlineBeginsWhenTheAnswerBeforeItEnds() throws {
        let channel = try Self.http1()
        try channel.writeInbound(Self.head)
        try channel.writeInbound(HTTPRequestPart.end(nil))
        try channel.writeInbound(Self.head)
        // Not its turn while the first is unanswered: it is not read, so it cannot be late.
        channel.embeddedEventLoop.advanceTime(by: Self.requestTimeout * 2)
        #expect(channel.isActive)
        try Self.answer(channel)
        channel.embeddedEventLoop.advanceTime(by: Self.requestTimeout - .milliseconds(1))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
    }

    @Test func anAnswerBeforeItsRequestEndedClosesTheConnectionAfterIt() throws {
        let channel = try Self.http1()
        try channel.writeInbound(Self.head)
        try Self.answer(channel)
        guard case .head(let response)? = try channel.readOutbound(as: HTTPResponsePart.self) else {
            Issue.record("no answer")
            return
        }
        #expect(response.headerFields[.connection] == "close")
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == .end(nil))
        #expect(!channel.isActive)
    }

    @Test func anAnswerAfterItsRequestKeepsTheConnection() throws {
        let channel = try Self.http1()
        try channel.writeInbound(Self.head)
        try channel.writeInbound(HTTPRequestPart.end(nil))
        try Self.answer(channel)
        guard case .head(let response)? = try channel.readOutbound(as: HTTPResponsePart.self) else {
            Issue.record("no answer")
            return
        }
        #expect(response.headerFields[.connection] == nil && channel.isActive)
    }

    @Test func aClientThatStopsTakingItsAnswerHasTheWriteTimeout() throws {
        let channel = try Self.http1()
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: Self.writeTimeout - .milliseconds(1))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)

        let reading = try Self.http1()
        reading.isWritable = false
        reading.pipeline.fireChannelWritabilityChanged()
        reading.embeddedEventLoop.advanceTime(by: Self.writeTimeout - .milliseconds(1))
        reading.isWritable = true
        reading.pipeline.fireChannelWritabilityChanged()
        reading.embeddedEventLoop.advanceTime(by: Self.writeTimeout)
        #expect(reading.isActive)
    }

    /// A client that closes its side while its answer is being made has gone; a half-close with nothing awaited is
    /// passed on.
    @Test func aHalfCloseWhileAnAnswerIsAwaitedClosesTheConnection() throws {
        let waiting = try Self.http1()
        try waiting.writeInbound(Self.head)
        try waiting.writeInbound(HTTPRequestPart.end(nil))
        waiting.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(!waiting.isActive)

        let idle = try Self.http1()
        idle.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(idle.isActive)
    }

    // MARK: The idle deadline

    static func idleConnection() throws -> (EmbeddedChannel, IdleDeadline, EventRecorder) {
        let channel = EmbeddedChannel()
        let idle = IdleDeadline(timeout: requestTimeout)
        let events = EventRecorder()
        try channel.pipeline.syncOperations.addHandlers([idle, events])
        try channel.connect(to: .init(unixDomainSocketPath: "/idle")).wait()
        return (channel, idle, events)
    }

    @Test func aConnectionWithNoStreamAndNoAcceptedPushIsSentAwayThenClosed() throws {
        let (channel, _, events) = try Self.idleConnection()
        channel.embeddedEventLoop.advanceTime(by: Self.requestTimeout)
        #expect(events.quiesced == 1 && channel.isActive)
        // Politely first (GOAWAY, as a shutdown does), then cut off if it stays.
        channel.embeddedEventLoop.advanceTime(by: Self.requestTimeout)
        #expect(!channel.isActive)
    }

    @Test func aBusyStreamHoldsTheIdleDeadlineUntilItIsIdle() throws {
        let (channel, idle, events) = try Self.idleConnection()
        idle.streamBusy()
        idle.streamBusy()
        channel.embeddedEventLoop.advanceTime(by: Self.requestTimeout * 3)
        idle.streamIdle()
        channel.embeddedEventLoop.advanceTime(by: Self.requestTimeout * 3)
        #expect(events.quiesced == 0)
        idle.streamIdle()
        channel.embeddedEventLoop.advanceTime(by: Self.requestTimeout)
        #expect(events.quiesced == 1)
    }

    @Test func anAcceptedPushLeavesTheConnectionToHTTP2sOwnIdleTimeout() throws {
        let (channel, idle, events) = try Self.idleConnection()
        #expect(idle.isWaitingForAPush)
        idle.pushAccepted()
        #expect(!idle.isWaitingForAPush)
        channel.embeddedEventLoop.advanceTime(by: Self.requestTimeout * 3)
        #expect(events.quiesced == 0 && channel.isActive)
    }

    // MARK: HTTP/2's GOAWAYs

    static func http2() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            HTTP2ConnectionManager(eventLoop: channel.eventLoop, idleTimeout: .seconds(60), gracefulCloseTimeout: .seconds(1)))
        try channel.connect(to: .init(unixDomainSocketPath: "/h2")).wait()
        return channel
    }

    static func frames(_ channel: EmbeddedChannel) throws -> [HTTP2Frame.FramePayload] {
        var frames: [HTTP2Frame.FramePayload] = []
        while let frame = try channel.readOutbound(as: HTTP2Frame.self) { frames.append(frame.payload) }
        return frames
    }

    /// A graceful close, as HTTP/2's RFC 9113 §6.8 suggests: GOAWAY with the largest id and a PING; once the PING comes
    /// back, the GOAWAY naming the last stream opened, and the close.
    @Test func aGracefulCloseSendsTwoGoAwaysAroundAPing() throws {
        let channel = try Self.http2()
        channel.pipeline.fireUserInboundEventTriggered(NIOHTTP2StreamCreatedEvent(streamID: 5, localInitialWindowSize: nil, remoteInitialWindowSize: nil))
        channel.pipeline.fireUserInboundEventTriggered(StreamClosedEvent(streamID: 5, reason: nil))
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        let first = try Self.frames(channel)
        guard first.count == 2, case .goAway(let last, .noError, nil) = first[0], last == .maxID, case .ping(let ping, ack: false) = first[1] else {
            Issue.record("expected GOAWAY(max) and PING, got \(first)")
            return
        }
        try channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .ping(ping, ack: true)))
        guard case .goAway(let named, .noError, nil)? = try Self.frames(channel).first else {
            Issue.record("no second GOAWAY")
            return
        }
        #expect(named == 5)
        #expect(!channel.isActive)
    }

    @Test func aClientThatDoesNotAnswerThePingIsClosedAfterTheGracePeriod() throws {
        let channel = try Self.http2()
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(999))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
    }

    /// A fault's GOAWAY goes at once, with APNs' reason as its debug data.
    @Test func aGoAwayAtOnceCarriesItsDebugData() throws {
        let channel = try Self.http2()
        channel.pipeline.fireUserInboundEventTriggered(GoAwayNow(debugData: ByteBuffer(string: #"{"reason":"Shutdown"}"#)))
        guard case .goAway(_, .noError, let data?)? = try Self.frames(channel).first else {
            Issue.record("no GOAWAY")
            return
        }
        #expect(String(buffer: data) == #"{"reason":"Shutdown"}"#)
        // Only one: a second asks for nothing more.
        channel.pipeline.fireUserInboundEventTriggered(GoAwayNow(debugData: ByteBuffer(string: "again")))
        #expect(try Self.frames(channel).isEmpty)
    }
}
