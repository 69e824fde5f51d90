import HTTPTypes
import Hummingbird
import HuddleAPNs
import HuddleCore
import Logging
import NIOCore

/// A request to the provider API as ``ProviderEndpoint/answer(_:stores:)`` takes it, whatever carried it
/// (Hummingbird's router, or an HTTP/2 connection's ``SenderStreams``): the request, and the stream and
/// connection it came on, which authentication binds to and faults act on.
struct ProviderExchange: Sendable {
    var method: String
    /// The path without its query.
    var path: String
    /// Names lowercased, repeats kept.
    var headers: [(name: String, value: String)]
    var authority: String?
    var body: SenderRequestBody
    /// The request's own stream (an HTTP/2 stream, or the HTTP/1.1 connection), which faults cut off.
    var stream: RequestStream
    /// The client's connection: the request's channel, or for an HTTP/2 stream the connection it is on.
    var connectionChannel: any Channel
    var isHTTP2: Bool
    var logger: Logger
    /// The client's address and port (``client(of:)``), which the inspector shows.
    var client: String?
    /// What the server knows of the client's connection: its provider token's state, its certificate.
    var clientConnection: ClientConnection

    /// Tells the request's transport that the endpoint accepted a sender's message (``SenderAccepted``): an HTTP/2
    /// stream with a channel of its own hears it on that channel; a push that ``SenderStreams`` serves learns it from
    /// its answer; an HTTP/1.1 connection has no deadline that it changes.
    func tellSenderAccepted() {
        if isHTTP2, case .channel(let channel) = stream { SenderAccepted.tell(channel) }
    }

    /// A connection's client as the inspector shows it, `address:port`: formatted once per connection by the
    /// handlers that answer pushes, not for every push.
    static func client(of connectionChannel: any Channel) -> String? {
        connectionChannel.remoteAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" }
    }
}

extension ProviderExchange {
    /// A request that Hummingbird's router carried, with the stream and connection of `context`.
    init(_ request: Request, path: String, context: HuddleRequestContext, clientConnection: ClientConnection) {
        self.init(
            method: request.method.rawValue, path: path, headers: request.headers.map { (name: $0.name.canonicalName, value: $0.value) },
            authority: request.head.authority, body: .request(request), stream: .channel(context.channel), connectionChannel: context.connectionChannel,
            isHTTP2: context.isHTTP2, logger: context.logger, client: Self.client(of: context.connectionChannel), clientConnection: clientConnection)
    }
}

/// What a push came on, as a fault acts on it: a channel of its own (an HTTP/2 stream's child channel, or an HTTP/1.1
/// connection), or an HTTP/2 stream that ``SenderStreams`` serves on the connection itself. Nothing is allocated for
/// it: most pushes meet no fault.
enum RequestStream: Sendable {
    case channel(any Channel)
    case push(NIOLoopBound<any ConnectionServedStream>)

    /// Cuts the request off unanswered, from any thread: an HTTP/2 stream is reset (RST_STREAM `CANCEL`), an HTTP/1.1
    /// connection closed.
    func cutOff() {
        switch self {
        case .channel(let channel): channel.close(promise: nil)
        case .push(let stream): stream.eventLoop.execute { stream.value.reset() }
        }
    }

    /// Calls `body` once the stream (or connection) has closed, at once if it has; from any thread.
    func whenClosed(_ body: @escaping @Sendable () -> Void) {
        switch self {
        case .channel(let channel): channel.closeFuture.whenComplete { _ in body() }
        case .push(let stream): stream.eventLoop.execute { stream.value.whenClosed(body) }
        }
    }
}

/// An HTTP/2 stream the transport serves on its connection's own pipeline (a push's, ``SenderStream``), as a fault reaches
/// it, on the connection's event loop.
protocol ConnectionServedStream: AnyObject {
    /// Resets the stream (RST_STREAM `CANCEL`).
    func reset()
    /// Calls `body` once the stream has closed, at once if it has.
    func whenClosed(_ body: @escaping @Sendable () -> Void)
}
