@testable import HuddleServer
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Testing

/// The pushes an HTTP/2 connection serves on its own pipeline (``SenderStreams``, a ``SenderStream`` per push), frame
/// by frame on an `EmbeddedChannel` whose loop's clock the tests move, as swift-nio-http2 tests its handlers. The
/// benchmark route `/bench/accept` is the push: answered at once, as soon as its request has ended.
@Suite struct SenderStreamsTests {
    static let requestTimeout = TimeAmount.seconds(2)

    /// A connection's channel with the push handler, and what it passes on to the stream multiplexer.
    static func connection() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        let pushes = SenderHTTP1HandlerTests.routes(answers: AnswerWriter(eventLoop: channel.eventLoop), isHTTP2: true)
        let idle = IdleDeadline(timeout: .seconds(30))
        let manager = HTTP2ConnectionManager(eventLoop: channel.eventLoop, idleTimeout: nil, gracefulCloseTimeout: .seconds(1))
        let streams = ConnectionStreams(
            eventLoop: channel.eventLoop, idleDeadline: idle, manager: manager, writeTimeout: .seconds(3), maximumHeldBytes: 1 << 20)
        try channel.pipeline.syncOperations.addHandlers([idle, SenderStreams(pushes: pushes, connection: streams, requestTimeout: requestTimeout)])
        try channel.connect(to: .init(unixDomainSocketPath: "/h2")).wait()
        return channel
    }

    static func head(_ path: String, method: String = "POST", endStream: Bool) -> HTTP2Frame.FramePayload {
        .headers(.init(headers: HPACKHeaders([(":method", method), (":scheme", "http"), (":authority", "localhost"), (":path", path)]), endStream: endStream))
    }

    static func data(_ count: Int, endStream: Bool = false) -> HTTP2Frame.FramePayload {
        .data(.init(data: .byteBuffer(ByteBuffer(repeating: 0x61, count: count)), endStream: endStream))
    }

    /// What the connection wrote, each frame as "HEADERS 200+END", "WINDOW_UPDATE", "RST_STREAM CANCEL"…, with its stream.
    static func written(_ channel: EmbeddedChannel) throws -> [String] {
        var frames: [String] = []
        while let frame = try channel.readOutbound(as: HTTP2Frame.self) {
            let text: String
            switch frame.payload {
            case .headers(let headers): text = "HEADERS \(headers.headers.first(name: ":status") ?? "?")" + (headers.endStream ? "+END" : "")
            case .data(let data): text = "DATA" + (data.endStream ? "+END" : "")
            case .windowUpdate: text = "WINDOW_UPDATE"
            case .rstStream(let code): text = "RST_STREAM \(code == .noError ? "NO_ERROR" : code == .cancel ? "CANCEL" : "\(code)")"
            default: text = "other"
            }
            frames.append("\(Int32(frame.streamID)) \(text)")
        }
        return frames
    }

    @Test func aPushInOneFrameIsAnsweredOnTheConnectionAndGoesNoFurther() throws {
        let channel = try Self.connection()
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: Self.head("/bench/accept", endStream: true)))
        let frames = try Self.written(channel)
        #expect(frames == ["1 HEADERS 200+END"], "\(frames)")
        #expect(try channel.readInbound(as: HTTP2Frame.self) == nil)
        // Accepted: the connection is a provider's, and its idle deadline for strangers is gone.
        #expect((try? channel.pipeline.syncOperations.handler(type: IdleDeadline.self)) == nil)
    }

    @Test func anyOtherStreamGoesOnToTheMultiplexer() throws {
        let channel = try Self.connection()
        try channel.writeInbound(HTTP2Frame(streamID: 3, payload: Self.head("/v1/devices", method: "GET", endStream: true)))
        #expect(try channel.readInbound(as: HTTP2Frame.self)?.streamID == 3)
        #expect(try Self.written(channel).isEmpty)
        #expect((try? channel.pipeline.syncOperations.handler(type: IdleDeadline.self)) != nil)
    }

    @Test func aPushWhoseBodyDoesNotEndByItsDeadlineIsReset() throws {
        let channel = try Self.connection()
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: Self.head("/bench/accept", endStream: false)))
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: Self.data(10)))
        channel.embeddedEventLoop.advanceTime(by: Self.requestTimeout - .milliseconds(1))
        #expect(try Self.written(channel).isEmpty)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(try Self.written(channel) == ["1 RST_STREAM CANCEL"])
    }

    @Test func aPushWhoseBodyEndsInTimeIsAnsweredWithNoReset() throws {
        let channel = try Self.connection()
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: Self.head("/bench/accept", endStream: false)))
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: Self.data(10, endStream: true)))
        channel.embeddedEventLoop.advanceTime(by: Self.requestTimeout * 2)
        #expect(try Self.written(channel) == ["1 HEADERS 200+END"])
    }

    /// A body longer than a push can be is read on (the client given window for it) up to HTTP/2's initial window, then
    /// answered; once the answer has gone out the client is told to stop sending (RST_STREAM `NO_ERROR`).
    @Test func aBodyWithoutEndIsAnsweredPastTheLongestDroppedAndTheRequestStopped() throws {
        let channel = try Self.connection()
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: Self.head("/bench/accept", endStream: false)))
        for _ in 0..<3 { try channel.writeInbound(HTTP2Frame(streamID: 1, payload: Self.data(16_384))) }
        #expect(try Self.written(channel) == ["1 WINDOW_UPDATE"])
        // The fourth takes it past 65,535 bytes.
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: Self.data(16_384)))
        #expect(try Self.written(channel) == ["1 HEADERS 200+END", "1 RST_STREAM NO_ERROR"])
        // What more comes of it is dropped.
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: Self.data(10, endStream: true)))
        #expect(try Self.written(channel).isEmpty && channel.readInbound(as: HTTP2Frame.self) == nil)
    }

    /// A second head on a push's stream is no request's: the stream is reset.
    @Test func aSecondHeadWithoutEndResetsTheStream() throws {
        let channel = try Self.connection()
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: Self.head("/bench/accept", endStream: false)))
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: Self.head("/bench/accept", endStream: false)))
        #expect(try Self.written(channel) == ["1 RST_STREAM CANCEL"])
    }

    /// A stream closed (reset by its client) takes no answer and keeps no deadline.
    @Test func aClosedStreamIsForgotten() throws {
        let channel = try Self.connection()
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: Self.head("/bench/accept", endStream: false)))
        channel.pipeline.fireUserInboundEventTriggered(StreamClosedEvent(streamID: 1, reason: .cancel))
        channel.embeddedEventLoop.advanceTime(by: Self.requestTimeout * 2)
        #expect(try Self.written(channel).isEmpty)
        // Its id's later frames are another stream's business: passed on.
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: Self.data(1, endStream: true)))
        #expect(try channel.readInbound(as: HTTP2Frame.self) != nil)
    }
}
