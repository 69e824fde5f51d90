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

/// A request's body, read when the endpoint asks for it: after the checks that need no body, so that a refused
/// request's body is never read.
enum SenderRequestBody: Sendable {
    /// Hummingbird's request, whose body is read then.
    case request(Request)
    /// Read already by the transport, up to ``largestPayload`` bytes; `nil` when the body was longer (the
    /// rest was dropped).
    case collected(ByteBuffer?)

    /// The most that any push type may carry: the transport keeps no more.
    static let largestPayload = PushType.allCases.map(\.maximumPayloadSize).max() ?? 4096

    /// The whole body; `PayloadTooLarge` when it is longer than `limit`.
    func collect(limit: Int) async throws -> ByteBuffer {
        switch self {
        case .request(let request):
            do {
                return try await request.collectBody(limit: limit)
            } catch is APIError {
                throw APNsReason.payloadTooLarge
            }
        case .collected(let body):
            guard let body, body.readableBytes <= limit else { throw APNsReason.payloadTooLarge }
            return body
        }
    }
}

/// What a sender's endpoint answers (APNs' provider endpoint, FCM's `messages:send`): the transport writes it (the
/// status, the headers, the JSON body), and for an HTTP/1.1 request whose refusal `goesAway`, closes the connection
/// after it. A request
/// that a fault cut off is not `answered`: its stream or connection is closed already.
struct SenderAnswer: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: ByteBuffer?
    var answered = true
    var goesAway = false
    /// The request was a sender's message, accepted (``SenderAccepted``): what the transport learns it from.
    var acceptsSender = false
    /// The request's body was too long to be read to its end (``SenderRequestReading/longestDropped``): an
    /// HTTP/1.1 connection reads nothing more (and ends with this answer). An HTTP/2 stream needs no word of it:
    /// an answer that ends before its request is reset after the answer (``StreamLifetime``, ``SenderStream``).
    var bodyCutShort = false
}

extension SenderAnswer {
    /// `value` as a JSON answer, as the router's JSON answers are written (``Response/json(_:status:headers:)``).
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> SenderAnswer {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        var bytes = value.jsonUTF8()
        bytes.append(UInt8(ascii: "\n"))
        return SenderAnswer(status: status, headers: headers, body: ByteBuffer(bytes: bytes))
    }

    /// The answer as the router writes it.
    var routerResponse: Response {
        Response(status: status, headers: headers, body: body.map { .init(byteBuffer: $0) } ?? .init())
    }
}

extension HTTPFields {
    /// Adds a field whose value is new in every answer (an `apns-id`, an `apns-unique-id`), marked so that HTTP/2's
    /// header compression does not index it: indexed, each would only push out of the connection's table the
    /// fields that do repeat (the status, `server`, `date`), at a cost to both sides.
    mutating func appendUnindexed(_ name: HTTPField.Name, _ value: String) {
        var field = HTTPField(name: name, value: value)
        field.indexingStrategy = .avoid
        append(field)
    }
}
