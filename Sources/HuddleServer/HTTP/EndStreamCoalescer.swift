import NIOCore
import NIOHTTP2

/// Sends a response's end with the frame before it, as APNs does: its last body bytes and the end of its stream in one
/// DATA frame, and an answer without a body as one HEADERS frame that ends the stream.
///
/// The HTTP/2 codec writes a response's end as an empty DATA frame of its own, after the body's. That is valid
/// HTTP/2, but some APNs clients read every DATA frame as the whole JSON body: aioapns parses the empty one,
/// fails, and drops the connection with every push still on it. So a HEADERS or DATA frame is held until the next
/// write or flush: an empty end that follows at once goes out as that frame's END_STREAM flag. For the common answer,
/// a 200 without a body, that is one frame where there were two, each of which HTTP/2's state machine, flow control
/// and the socket's write would handle. A flush always sends what is held, so a stream written bit by bit
/// (Server-Sent Events) is never delayed.
final class EndStreamCoalescer: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private var held: (payload: HTTP2Frame.FramePayload, promise: EventLoopPromise<Void>?)?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let payload = unwrapOutboundIn(data)
        if Self.isEmptyEnd(payload), case (let heldPayload, let heldPromise)? = held, let ended = Self.ending(heldPayload) {
            held = nil
            if let heldPromise, let promise { heldPromise.futureResult.cascade(to: promise) }
            context.write(wrapOutboundOut(ended), promise: heldPromise ?? promise)
            return
        }
        sendHeld(context: context)
        if Self.ending(payload) != nil {
            held = (payload, promise)
        } else {
            context.write(data, promise: promise)
        }
    }

    func flush(context: ChannelHandlerContext) {
        sendHeld(context: context)
        context.flush()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        sendHeld(context: context)
        context.close(mode: mode, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        sendHeld(context: context)
    }

    private func sendHeld(context: ChannelHandlerContext) {
        guard let (payload, promise) = held else { return }
        held = nil
        context.write(wrapOutboundOut(payload), promise: promise)
    }

    /// A DATA frame of no bytes that ends the stream: what the codec writes for a response's end.
    private static func isEmptyEnd(_ payload: HTTP2Frame.FramePayload) -> Bool {
        guard case .data(let frame) = payload, frame.endStream, case .byteBuffer(let bytes) = frame.data else { return false }
        return bytes.readableBytes == 0
    }

    /// The frame with END_STREAM set, for a frame an end may join: HEADERS that do not end the stream, or DATA of some
    /// bytes that do not; `nil` for any other.
    private static func ending(_ payload: HTTP2Frame.FramePayload) -> HTTP2Frame.FramePayload? {
        switch payload {
        case .headers(var headers) where !headers.endStream:
            headers.endStream = true
            return .headers(headers)
        case .data(var frame) where !frame.endStream:
            guard case .byteBuffer(let bytes) = frame.data, bytes.readableBytes > 0 else { return nil }
            frame.endStream = true
            return .data(frame)
        default:
            return nil
        }
    }
}
