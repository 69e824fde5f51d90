import NIOCore

/// Holds an HTTP/2 connection to `timeout` (`--request-timeout`) of idleness until a push is accepted on it.
///
/// HTTP/2's own idle timeout (`--idle-timeout`) is long, because APNs clients keep their connections between
/// pushes, and counts only while no stream is open. Granting it to every connection would let a stranger
/// hold a place under `--max-connections` that long with the preface alone, or with one cheap request. So
/// until a push is accepted on it (a 200 with an `apns-id`: a provider with a valid token gets one, or any
/// client under `--development`), a connection with no stream open is sent away after `timeout`: politely
/// (GOAWAY, as a shutdown does), then cut off if it stays. A busy stream (a page's live stream, a request being
/// read or answered) keeps it open; one whose answer waits only for the client to read does not. Each stream's
/// ``StreamLifetime`` tells it, through ``ConnectionStreams``, when the stream is busy and when a push on it is
/// accepted.
final class IdleDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Any

    /// Whether no push was accepted on the connection yet (the deadline is still in its pipeline).
    var isWaitingForAPush: Bool { context != nil }

    private let timeout: TimeAmount
    private var busyStreams = 0
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

    func streamBusy() {
        busyStreams += 1
        deadline?.cancel()
        deadline = nil
    }

    func streamIdle() {
        busyStreams -= 1
        if busyStreams == 0 { scheduleDeadline() }
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
