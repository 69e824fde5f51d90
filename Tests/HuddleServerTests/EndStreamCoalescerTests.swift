@testable import HuddleServer
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Testing

/// The frames an answer leaves as, below the HTTP/2 codec: its end joins the frame before it, as APNs sends answers.
@Suite struct EndStreamCoalescerTests {
    /// What the channel wrote, each frame as "HEADERS" or "DATA <bytes>", with "+END" when it ends the stream.
    static func written(_ channel: EmbeddedChannel) throws -> [String] {
        var frames: [String] = []
        while let payload = try channel.readOutbound(as: HTTP2Frame.FramePayload.self) {
            switch payload {
            case .headers(let headers): frames.append("HEADERS" + (headers.endStream ? "+END" : ""))
            case .data(let data):
                guard case .byteBuffer(let bytes) = data.data else { throw CoalescerTestError.fileRegion }
                frames.append("DATA \(bytes.readableBytes)" + (data.endStream ? "+END" : ""))
            default: frames.append("other")
            }
        }
        return frames
    }

    enum CoalescerTestError: Error { case fileRegion }

    static let head = HTTP2Frame.FramePayload.headers(.init(headers: HPACKHeaders([(":status", "200"), ("apns-id", "a")])))
    static let end = HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(ByteBuffer()), endStream: true))
    static func body(_ text: String) -> HTTP2Frame.FramePayload { .data(.init(data: .byteBuffer(ByteBuffer(string: text)))) }

    static func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(EndStreamCoalescer())
        return channel
    }

    @Test func anAnswerWithoutABodyIsOneHeadersFrameThatEndsTheStream() throws {
        let channel = try Self.channel()
        channel.write(Self.head, promise: nil)
        try channel.writeAndFlush(Self.end).wait()
        #expect(try Self.written(channel) == ["HEADERS+END"])
    }

    @Test func aBodysLastBytesCarryTheEnd() throws {
        let channel = try Self.channel()
        channel.write(Self.head, promise: nil)
        channel.write(Self.body(#"{"reason":"BadDeviceToken"}"#), promise: nil)
        try channel.writeAndFlush(Self.end).wait()
        #expect(try Self.written(channel) == ["HEADERS", "DATA 27+END"])
    }

    /// A stream written bit by bit (Server-Sent Events): each flush sends what it holds, and the end goes alone.
    @Test func aFlushSendsWhatIsHeldAndAnEndAfterItGoesAlone() throws {
        let channel = try Self.channel()
        try channel.writeAndFlush(Self.head).wait()
        #expect(try Self.written(channel) == ["HEADERS"])
        try channel.writeAndFlush(Self.body("data: 1\n\n")).wait()
        #expect(try Self.written(channel) == ["DATA 9"])
        try channel.writeAndFlush(Self.end).wait()
        #expect(try Self.written(channel) == ["DATA 0+END"])
    }

    /// Trailers end the stream themselves; an end with nothing held before it goes as it came.
    @Test func framesThatEndTheStreamPassAsTheyCame() throws {
        let channel = try Self.channel()
        channel.write(Self.head, promise: nil)
        channel.write(Self.body("x"), promise: nil)
        try channel.writeAndFlush(HTTP2Frame.FramePayload.headers(.init(headers: HPACKHeaders([("grpc-status", "0")]), endStream: true))).wait()
        #expect(try Self.written(channel) == ["HEADERS", "DATA 1", "HEADERS+END"])
    }

    /// The promise of the joined frame completes both writes' promises.
    @Test func bothPromisesOfAJoinedFrameComplete() throws {
        let channel = try Self.channel()
        let headWritten = channel.eventLoop.makePromise(of: Void.self)
        channel.write(Self.head, promise: headWritten)
        let endWritten = channel.writeAndFlush(Self.end)
        try headWritten.futureResult.wait()
        try endWritten.wait()
        #expect(try Self.written(channel) == ["HEADERS+END"])
    }
}
