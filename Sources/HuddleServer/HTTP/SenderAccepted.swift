import NIOCore

/// What an endpoint tells its request's transport when it accepted a sender's message (an APNs push or broadcast, an
/// FCM send): the connection is a provider's from now on, and only HTTP/2's idle timeout applies to it
/// (``IdleDeadline``). An outbound event on the request's channel, which an HTTP/2 stream's ``StreamLifetime`` takes;
/// the transport never reads an answer's headers to learn it.
struct SenderAccepted: Sendable {
    /// Tells the transport of the request on `channel`, from any thread.
    static func tell(_ channel: any Channel) {
        channel.triggerUserOutboundEvent(SenderAccepted(), promise: nil)
    }

    /// Tells the transport of the request `context` answers, when it is an HTTP/2 stream (an HTTP/1.1 connection has
    /// no deadline that this changes, and a push should not pay for a hop to its event loop).
    static func tell(_ context: HuddleRequestContext) {
        if context.isHTTP2 { tell(context.channel) }
    }
}
