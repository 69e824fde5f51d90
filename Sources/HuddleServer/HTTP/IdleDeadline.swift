import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Holds an HTTP/2 connection to `timeout` (`--request-timeout`) of idleness until a push is accepted on it.
///
/// HTTP/2's own idle timeout (`--idle-timeout`) is long, because APNs clients keep their connections between
/// pushes, and counts only while no stream is open. Granting it to every connection would let a stranger
/// hold a place under `--max-connections` that long with the preface alone, or with one cheap request. So
/// until a push is accepted on it (a 200 with an `apns-id`: a provider with a valid token gets one, or any
/// client under `--development`), a connection with no stream open is sent away after `timeout`: politely
/// (GOAWAY, as a shutdown does), then cut off if it stays. A stream under way (a page's live stream, a
/// request being answered) keeps it open. Each stream's ``StreamSignal`` tells the connection when it
/// opens, when a push on it is accepted, and when it closes.
final class IdleDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Any

    /// What a stream sends up its connection's pipeline.
    enum Signal {
        case opened, pushAccepted, closed
    }

    /// Sits in each HTTP/2 stream and tells the connection what happens to it.
    final class StreamSignal: ChannelOutboundHandler, RemovableChannelHandler {
        typealias OutboundIn = HTTPResponsePart
        typealias OutboundOut = HTTPResponsePart

        private static let apnsID = HTTPField.Name("apns-id")!

        func handlerAdded(context: ChannelHandlerContext) {
            context.channel.parent?.pipeline.fireUserInboundEventTriggered(Signal.opened)
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            context.channel.parent?.pipeline.fireUserInboundEventTriggered(Signal.closed)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if case .head(let response) = unwrapOutboundIn(data), response.status == .ok, response.headerFields[Self.apnsID] != nil {
                context.channel.parent?.pipeline.fireUserInboundEventTriggered(Signal.pushAccepted)
            }
            context.write(data, promise: promise)
        }
    }

    private let timeout: TimeAmount
    private var openStreams = 0
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        scheduleDeadline(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let signal = event as? Signal else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        switch signal {
        case .opened:
            openStreams += 1
            deadline?.cancel()
            deadline = nil
        case .closed:
            openStreams -= 1
            if openStreams == 0 { scheduleDeadline(context) }
        case .pushAccepted:
            // A provider: from now on HTTP/2's idle timeout alone applies.
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    private func scheduleDeadline(_ context: ChannelHandlerContext) {
        let channel = context.channel
        let timeout = timeout
        deadline = context.eventLoop.scheduleTask(in: timeout) {
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
            channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        }
    }
}
