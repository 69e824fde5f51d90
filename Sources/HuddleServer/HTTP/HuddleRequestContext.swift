public import Hummingbird
import NIOCore

/// The request context of every Huddle route: Hummingbird's core context, and the connection the request
/// came on, which provider authentication binds to.
public struct HuddleRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Identifies the client connection: the channel itself for HTTP/1.1, the parent connection of an
    /// HTTP/2 stream channel.
    let connection: ObjectIdentifier
    let connectionClosed: EventLoopFuture<Void>
    /// The request's own channel (an HTTP/2 stream's, or the HTTP/1.1 connection's), for a long response
    /// that must end the request early.
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        let connectionChannel = source.channel.parent ?? source.channel
        connection = ObjectIdentifier(connectionChannel)
        connectionClosed = connectionChannel.closeFuture
        channel = source.channel
    }
}
