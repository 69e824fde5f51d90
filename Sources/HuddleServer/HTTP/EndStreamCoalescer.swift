import NIOCore
import NIOHTTP2

/// Sends a response's last body bytes and the end of its stream in one DATA frame, as APNs does.
///
/// The HTTP/2 codec writes a response's end as an empty DATA frame of its own, after the body's. That is valid
/// HTTP/2, but some APNs clients read every DATA frame as the whole JSON body: aioapns parses the empty one,
/// fails, and drops the connection with every push still on it. So a DATA frame is held until the next write or
/// flush: an empty end that follows at once goes out as that frame's END_STREAM flag. A flush always sends what
/// is held, so a stream written bit by bit (Server-Sent Events) is never delayed.
final class EndStreamCoalescer: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private var held: (data: HTTP2Frame.FramePayload.Data, promise: EventLoopPromise<Void>?)?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let payload = unwrapOutboundIn(data)
        guard case .data(let frame) = payload, case .byteBuffer(let bytes) = frame.data else {
            sendHeld(context: context)
            context.write(data, promise: promise)
            return
        }
        if frame.endStream, bytes.readableBytes == 0, case (var heldFrame, let heldPromise)? = held {
            held = nil
            heldFrame.endStream = true
            if let heldPromise, let promise { heldPromise.futureResult.cascade(to: promise) }
            context.write(wrapOutboundOut(.data(heldFrame)), promise: heldPromise ?? promise)
            return
        }
        sendHeld(context: context)
        if frame.endStream || bytes.readableBytes == 0 {
            context.write(data, promise: promise)
        } else {
            held = (frame, promise)
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
        guard let (frame, promise) = held else { return }
        held = nil
        context.write(wrapOutboundOut(.data(frame)), promise: promise)
    }
}
