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
/// request being answered) keeps it open. Each stream's ``StreamSignal`` tells it when the stream opens,
/// when a push on it is accepted, and when it closes.
final class IdleDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Any

    /// Sits in each HTTP/2 stream and tells the connection's deadline, directly (streams run on their
    /// connection's event loop), when the stream opens, when a push on it is accepted, and when it closes.
    final class StreamSignal: ChannelOutboundHandler, RemovableChannelHandler {
        typealias OutboundIn = HTTPResponsePart
        typealias OutboundOut = HTTPResponsePart

        private static let apnsID = HTTPField.Name("apns-id")!
        /// The connection's deadline, given when the stream is made (not looked up in the connection's pipeline
        /// for every stream). Once a push was accepted on the connection it has left the pipeline, and what it
        /// is told changes nothing.
        private let deadline: IdleDeadline

        init(deadline: IdleDeadline) {
            self.deadline = deadline
        }

        func handlerAdded(context: ChannelHandlerContext) {
            deadline.streamOpened()
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            deadline.streamClosed()
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if deadline.isWaitingForAPush, case .head(let response) = unwrapOutboundIn(data), response.status == .ok,
                response.headerFields[Self.apnsID] != nil
            {
                deadline.pushAccepted()
            }
            context.write(data, promise: promise)
        }
    }

    /// Whether no push was accepted on the connection yet (the deadline is still in its pipeline).
    var isWaitingForAPush: Bool { context != nil }

    private let timeout: TimeAmount
    private var openStreams = 0
    private var deadline: Scheduled<Void>?
    /// The deadline's place in its connection's pipeline, while it is there.
    private var context: ChannelHandlerContext?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        scheduleDeadline()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        self.context = nil
    }

    func streamOpened() {
        openStreams += 1
        deadline?.cancel()
        deadline = nil
    }

    func streamClosed() {
        openStreams -= 1
        if openStreams == 0 { scheduleDeadline() }
    }

    /// A provider: from now on HTTP/2's idle timeout alone applies.
    func pushAccepted() {
        guard let context else { return }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    private func scheduleDeadline() {
        guard let context else { return }
        let channel = context.channel
        let timeout = timeout
        deadline = context.eventLoop.scheduleTask(in: timeout) {
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
            channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        }
    }
}
