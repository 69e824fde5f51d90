public import Hummingbird
import NIOCore

/// The request context of every Huddle route: Hummingbird's core context, and the channel and connection the request
/// came on (what the server knows of the connection, ``ClientConnection``, is in the connection's pipeline).
public struct HuddleRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The request's own channel (an HTTP/2 stream's, or the HTTP/1.1 connection's), for a long response
    /// that must end the request early.
    let channel: any Channel
    /// The client's connection: the request's channel, or for an HTTP/2 stream the connection it is on.
    let connectionChannel: any Channel
    let isHTTP2: Bool

    /// The client's address, which wrong tokens are counted by.
    var clientAddress: String { connectionChannel.remoteAddress?.ipAddress ?? "unknown" }

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        // An accepted connection's parent is the listening socket; an HTTP/2 stream's parent is the connection.
        // So a request's channel is an HTTP/2 stream exactly when its parent has a parent too.
        if let parent = source.channel.parent, parent.parent != nil {
            connectionChannel = parent
            isHTTP2 = true
        } else {
            connectionChannel = source.channel
            isHTTP2 = false
        }
        channel = source.channel
    }
}
