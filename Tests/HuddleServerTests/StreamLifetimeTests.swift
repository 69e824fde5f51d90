import HTTPTypes
@testable import HuddleServer
import NIOCore
import NIOEmbedded
import NIOHTTP2
import NIOHTTPTypes
import Testing

/// One HTTP/2 stream with a channel of its own, as swift-nio-http2 tests its handlers: `EmbeddedChannel`s on one
/// `EmbeddedEventLoop`, whose clock the tests move. The stream's channel holds the ``StreamLifetime`` above a client
/// whose window the test opens (``ClientWindow``); its connection's channel holds the connection's deadlines.
@Suite struct StreamLifetimeTests {
    static let requestTimeout = TimeAmount.seconds(2)
    static let writeTimeout = TimeAmount.seconds(3)
    static let idleTimeout = TimeAmount.seconds(5)

    /// A connection's channel and what its streams share.
    final class Connection {
        let loop = EmbeddedEventLoop()
        let channel: EmbeddedChannel
        let idle: IdleDeadline
        let streams: ConnectionStreams
        let events = ConnectionDeadlineTests.EventRecorder()

        init(maximumHeldBytes: Int = 1_000) throws {
            channel = EmbeddedChannel(loop: loop)
            idle = IdleDeadline(timeout: StreamLifetimeTests.idleTimeout)
            let manager = HTTP2ConnectionManager(eventLoop: loop, idleTimeout: nil, gracefulCloseTimeout: .seconds(1))
            try channel.pipeline.syncOperations.addHandlers([idle, manager, events])
            try channel.connect(to: .init(unixDomainSocketPath: "/connection")).wait()
            streams = ConnectionStreams(
                eventLoop: loop, idleDeadline: idle, manager: manager, writeTimeout: StreamLifetimeTests.writeTimeout,
                maximumHeldBytes: maximumHeldBytes)
        }

        /// A stream opening on it: its channel, and the client's window for its answer.
        func openStream(windowOpen: Bool = true) throws -> (channel: EmbeddedChannel, window: ClientWindow) {
            let window = ClientWindow(open: windowOpen)
            let channel = EmbeddedChannel(loop: loop)
            try channel.pipeline.syncOperations.addHandlers([
                EndStreamCoalescer(), window, StreamLifetime(connection: streams, requestTimeout: StreamLifetimeTests.requestTimeout, eventLoop: loop),
            ])
            try channel.connect(to: .init(unixDomainSocketPath: "/stream")).wait()
            return (channel, window)
        }

        /// Whether the connection was asked to go away for idleness (``IdleDeadline``).
        var wasSentAway: Bool { events.quiesced > 0 }

        /// Whether the connection still waits for a push to be accepted (its ``IdleDeadline`` is in the pipeline).
        var waitsForAPush: Bool { (try? channel.pipeline.syncOperations.handler(type: IdleDeadline.self)) != nil }
    }

    /// The client's flow-control window, as the stream's answer meets it: while closed, a write is not taken (its
    /// promise waits); opening it takes every waiting write, and the stream's close fails them. Keeps what was taken.
    final class ClientWindow: ChannelOutboundHandler {
        typealias OutboundIn = HTTPResponsePart
        private(set) var isOpen: Bool
        private var waiting: [(HTTPResponsePart, EventLoopPromise<Void>?)] = []
        private(set) var taken: [HTTPResponsePart] = []

        init(open: Bool) {
            isOpen = open
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            let part = unwrapOutboundIn(data)
            if isOpen {
                taken.append(part)
                promise?.succeed(())
            } else {
                waiting.append((part, promise))
            }
        }

        /// A stream closed (reset) fails the writes its client had not taken, as the HTTP/2 stream's channel does.
        func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
            let writes = waiting
            waiting = []
            for (_, promise) in writes { promise?.fail(ChannelError.ioOnClosedChannel) }
            context.close(mode: mode, promise: promise)
        }

        func open() {
            isOpen = true
            let writes = waiting
            waiting = []
            for (part, promise) in writes {
                taken.append(part)
                promise?.succeed(())
            }
        }
    }

    static let head = HTTPRequestPart.head(HTTPRequest(method: .post, scheme: "https", authority: "localhost", path: "/v1/devices"))
    static let answerHead = HTTPResponsePart.head(HTTPResponse(status: .ok))
    static func body(_ count: Int) -> HTTPResponsePart { .body(ByteBuffer(repeating: 0x61, count: count)) }

    /// The frames written below the HTTP codec (the reset that stops a request).
    static func frames(_ channel: EmbeddedChannel) throws -> [HTTP2Frame.FramePayload] {
        var frames: [HTTP2Frame.FramePayload] = []
        while let frame = try channel.readOutbound(as: HTTP2Frame.FramePayload.self) { frames.append(frame) }
        return frames
    }

    @Test func aRequestThatHasNotEndedByItsDeadlineResetsItsStreamAndFreesTheConnection() throws {
        let connection = try Connection()
        let (stream, _) = try connection.openStream()
        try stream.writeInbound(Self.head)
        connection.loop.advanceTime(by: Self.requestTimeout - .milliseconds(1))
        #expect(stream.isActive)
        connection.loop.advanceTime(by: .milliseconds(1))
        #expect(!stream.isActive)
        // Idle at once: the connection's own deadline runs again from the reset.
        #expect(!connection.wasSentAway)
        connection.loop.advanceTime(by: Self.idleTimeout)
        #expect(connection.wasSentAway)
    }

    @Test func aRequestThatEndsInTimeKeepsItsStreamAndTheConnectionWhileItIsAnswered() throws {
        let connection = try Connection()
        let (stream, window) = try connection.openStream()
        try stream.writeInbound(Self.head)
        try stream.writeInbound(HTTPRequestPart.end(nil))
        connection.loop.advanceTime(by: Self.idleTimeout + Self.requestTimeout)
        // Busy until its answer's end: neither the request's deadline nor the connection's idleness applies.
        #expect(stream.isActive && !connection.wasSentAway)
        stream.write(Self.answerHead, promise: nil)
        try stream.writeAndFlush(HTTPResponsePart.end(nil)).wait()
        #expect(try window.taken.count == 2 && Self.frames(stream).isEmpty)
        connection.loop.advanceTime(by: Self.idleTimeout)
        #expect(connection.wasSentAway)
    }

    @Test func anAcceptedSendMakesTheConnectionAProvidersAndAnyOtherEventGoesOn() throws {
        let connection = try Connection()
        let (stream, _) = try connection.openStream()
        #expect(connection.waitsForAPush)
        stream.pipeline.triggerUserOutboundEvent(ChannelShouldQuiesceEvent(), promise: nil)
        #expect(connection.waitsForAPush)
        stream.pipeline.triggerUserOutboundEvent(SenderAccepted(), promise: nil)
        #expect(!connection.waitsForAPush)
    }

    @Test func anAnswerTheClientDoesNotTakeByTheWriteDeadlineResetsTheStream() throws {
        let connection = try Connection()
        let (stream, window) = try connection.openStream(windowOpen: false)
        try stream.writeInbound(Self.head)
        try stream.writeInbound(HTTPRequestPart.end(nil))
        stream.write(Self.answerHead, promise: nil)
        stream.write(Self.body(100), promise: nil)
        stream.writeAndFlush(HTTPResponsePart.end(nil), promise: nil)
        #expect(connection.streams.heldBytes == 100)
        connection.loop.advanceTime(by: Self.writeTimeout - .milliseconds(1))
        #expect(stream.isActive)
        connection.loop.advanceTime(by: .milliseconds(1))
        #expect(!stream.isActive)
        // Closing failed the waiting writes: nothing is held for the client any more.
        #expect(connection.streams.heldBytes == 0 && window.taken.isEmpty)
    }

    @Test func anAnswerTakenBeforeTheWriteDeadlineKeepsTheStream() throws {
        let connection = try Connection()
        let (stream, window) = try connection.openStream(windowOpen: false)
        try stream.writeInbound(Self.head)
        try stream.writeInbound(HTTPRequestPart.end(nil))
        stream.write(Self.body(100), promise: nil)
        stream.flush()
        connection.loop.advanceTime(by: Self.writeTimeout - .milliseconds(1))
        window.open()
        #expect(connection.streams.heldBytes == 0)
        connection.loop.advanceTime(by: Self.writeTimeout)
        #expect(stream.isActive)
    }

    /// A client that never opens its window gets at most the connection's bound held for it, whatever number of
    /// streams it opens: a second stream's answer past the bound is dropped, and its stream reset.
    @Test func answersPastWhatTheConnectionMayHoldAreDropped() throws {
        let connection = try Connection(maximumHeldBytes: 150)
        let (first, _) = try connection.openStream(windowOpen: false)
        let (second, _) = try connection.openStream(windowOpen: false)
        first.writeAndFlush(Self.body(100), promise: nil)
        let dropped = second.writeAndFlush(Self.body(100))
        #expect(throws: ChannelError.outputClosed) { try dropped.wait() }
        #expect(first.isActive && !second.isActive)
        #expect(connection.streams.heldBytes == 100)
    }

    /// An answer that ends before its request did ends the request (RFC 9113 §8.1): what more comes of it is dropped,
    /// and once the answer's end has gone out the client is told to stop sending (RST_STREAM `NO_ERROR`).
    @Test func anAnswerBeforeTheRequestsEndStopsTheRequest() throws {
        let connection = try Connection()
        let (stream, window) = try connection.openStream(windowOpen: false)
        try stream.writeInbound(Self.head)
        #expect(try stream.readInbound(as: HTTPRequestPart.self) == Self.head)
        stream.write(Self.answerHead, promise: nil)
        stream.writeAndFlush(HTTPResponsePart.end(nil), promise: nil)
        // Not before the answer's end has gone out: a reset before it would drop the answer.
        #expect(try Self.frames(stream).isEmpty)
        window.open()
        guard case .rstStream(.noError)? = try Self.frames(stream).first else {
            Issue.record("no RST_STREAM NO_ERROR")
            return
        }
        try stream.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "late")))
        #expect(try stream.readInbound(as: HTTPRequestPart.self) == nil)
    }

    /// A request whose end came before its answer is a half-closed stream: the answer closes it, with no reset.
    @Test func aHalfClosedStreamGetsItsAnswerWithoutAReset() throws {
        let connection = try Connection()
        let (stream, window) = try connection.openStream()
        try stream.writeInbound(Self.head)
        try stream.writeInbound(HTTPRequestPart.end(nil))
        stream.write(Self.answerHead, promise: nil)
        stream.write(Self.body(10), promise: nil)
        try stream.writeAndFlush(HTTPResponsePart.end(nil)).wait()
        #expect(window.taken.count == 3)
        #expect(try Self.frames(stream).isEmpty)
    }
}
