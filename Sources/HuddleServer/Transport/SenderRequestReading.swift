import Foundation
import HTTPTypes
import HuddleCore
import Logging
import NIOCore
import NIOHTTPTypes

/// A sender's message read on its connection's event loop, for the handlers that answer them without Hummingbird's
/// router (``SenderStreams`` for HTTP/2, ``SenderHTTP1Handler`` for HTTP/1.1): the port's one table of the routes
/// its transport answers itself, every sender's message route: APNs' provider API (`/3/…`), the routes each sender
/// registered (``SenderRoute``: FCM's `POST /v1/projects/{project}/messages:send`, Web Push's `POST /web-push/…`), and
/// with the benchmark routes `/bench/check/3/…` and `/bench/accept`.
///
/// The body is read in full before the endpoint is asked, up to the largest payload any push type may carry (an FCM
/// message: FCM's 64 KB, or the route's own); a longer one is dropped as it comes and refused in its turn among the checks, in its
/// sender's words (`PayloadTooLarge`, FCM's `INVALID_ARGUMENT`). A request
/// that is refused before its body is needed is therefore answered once its body has come (Hummingbird's
/// route answered at once and read the body after); one whose body never ends is closed by the request
/// timeout. A body longer than ``longestDropped`` (and than what is kept) is not read to its end: the request is answered then, and
/// its stream reset or its connection closed after the answer (``SenderAnswer/bodyCutShort``), so that a
/// client cannot keep one request going by sending without end.
struct SenderRequestReading {
    /// How much of a too-long body is read and dropped so that the client, which is still sending it, gets its
    /// answer on a stream or connection that stays usable: HTTP/2's initial stream window, all that a client
    /// may send before the server reads.
    static let longestDropped = 65_535

    private enum Route {
        case provider(path: String, stores: Bool)
        case registered(any SenderRoute, path: String)
        case accept
    }

    private let head: HTTPRequest
    private let route: Route
    private var body: ByteBuffer?
    private var tooLarge = false
    /// The bytes of body received, kept or dropped.
    private var received = 0

    /// The most body bytes kept: the largest push, or the largest FCM message.
    private var longestKept: Int {
        if case .registered(let route, _) = route { route.longestBody } else { SenderRequestBody.largestPayload }
    }

    /// Whether the body has gone past ``longestDropped`` (and what is kept): nothing more of it is read.
    var isCutShort: Bool { received > max(Self.longestDropped, longestKept) }

    /// The reading of a sender's message; `nil` for a request that is not one (Hummingbird answers it).
    init?(_ head: HTTPRequest, routes: SenderRoutes) {
        let full = head.path ?? ""
        let path = full.utf8.firstIndex(of: UInt8(ascii: "?")).map { String(full[..<$0]) } ?? full
        if case .provider(let path, let stores) = routes.endpoint.route(path) {
            route = .provider(path: path, stores: stores)
        } else if let registered = routes.registered.first(where: { $0.takes(method: head.method, path: path) }) {
            route = .registered(registered, path: path)
        } else if routes.servesAcceptRoute, path == "/bench/accept", head.method == .post {
            route = .accept
        } else {
            return nil
        }
        self.head = head
    }

    mutating func append(_ chunk: inout ByteBuffer) {
        received += chunk.readableBytes
        guard !tooLarge else { return }
        if (body?.readableBytes ?? 0) + chunk.readableBytes > longestKept {
            body = nil
            tooLarge = true
        } else if body == nil {
            body = chunk
        } else {
            body!.writeBuffer(&chunk)
        }
    }


    /// Once the request has ended: `/bench/accept` is answered at once, a push by one task that runs
    /// ``ProviderEndpoint/answer(_:stores:)`` (key lookups, the device's session, the commit) on the
    /// connection's event loop (``EventLoopTaskExecutor``) and hands the answer to `answers`, which writes it
    /// with the other answers ready by then.
    func answer(
        endpoint: ProviderEndpoint, target: some SenderAnswerTarget, context: ChannelHandlerContext, stream: RequestStream,
        connectionChannel: any Channel, client: String?, clientConnection: ClientConnection, isHTTP2: Bool, answers: AnswerWriter,
        logger: Logger
    ) {
        switch route {
        case .accept:
            var fields = HTTPFields()
            fields.appendUnindexed(.apnsID, UUID.timeOrderedLowercasedString(at: Date()))
            target.write(SenderAnswer(status: .ok, headers: fields, acceptsSender: true, bodyCutShort: isCutShort), context: context)
        case .provider(let path, let stores):
            let exchange = ProviderExchange(
                method: head.method.rawValue, path: path, headers: head.headerFields.map { (name: $0.name.canonicalName, value: $0.value) },
                authority: head.authority, body: .collected(tooLarge ? nil : body ?? ByteBuffer()), stream: stream,
                connectionChannel: connectionChannel, isHTTP2: isHTTP2, logger: logger, client: client, clientConnection: clientConnection)
            let stream = AnswerWriter.Target((handler: target, context: context), eventLoop: context.eventLoop)
            let cutShort = isCutShort
            Task(executorPreference: answers.pushExecutor) {
                var answer = await endpoint.answer(exchange, stores: stores)
                guard answer.answered else { return }
                answer.bodyCutShort = cutShort
                answers.write(answer, on: stream)
            }
        case .registered(let route, let path):
            let message = SenderMessage(
                method: head.method, path: path, headers: head.headerFields, authority: head.authority,
                body: .collected(tooLarge ? nil : body ?? ByteBuffer()), client: client, isHTTP2: isHTTP2, logger: logger)
            let stream = AnswerWriter.Target((handler: target, context: context), eventLoop: context.eventLoop)
            let cutShort = isCutShort
            Task(executorPreference: answers.pushExecutor) {
                var answer = await route.answer(message)
                answer.bodyCutShort = cutShort
                answers.write(answer, on: stream)
            }
        }
    }
}

/// What the handlers that answer sender's messages share: the endpoints of the port's route table, and how a message is
/// read and answered.
struct SenderRoutes {
    let endpoint: ProviderEndpoint
    /// The routes the senders registered, whose messages the transport answers as it answers pushes.
    let registered: [any SenderRoute]
    let servesAcceptRoute: Bool
    /// The connection's writer of answers.
    let answers: AnswerWriter
    let isHTTP2: Bool
    let logger: Logger
    /// The connection's client (``ProviderExchange/client(of:)``).
    var client: String?
    /// What the server knows of the connection (its provider token, its certificate).
    let clientConnection: ClientConnection

    /// The reading of a sender's message; `nil` for a request that is not one (Hummingbird answers it).
    func reading(_ head: HTTPRequest) -> SenderRequestReading? {
        SenderRequestReading(head, routes: self)
    }

    /// Takes the next part of a push on an HTTP/1.1 connection; once the push has ended, or its body is cut short,
    /// starts its answer (for `target` to write) and returns true. A second head closes the channel (and returns true:
    /// nothing more is read of it).
    func read(
        _ part: HTTPRequestPart, into reading: inout SenderRequestReading, target: some SenderAnswerTarget, context: ChannelHandlerContext
    ) -> Bool {
        switch part {
        case .head:
            context.close(promise: nil)
            return true
        case .body(var chunk):
            reading.append(&chunk)
            guard reading.isCutShort else { return false }
            answer(reading, target: target, context: context)
            return true
        case .end:
            answer(reading, target: target, context: context)
            return true
        }
    }

    private func answer(_ reading: SenderRequestReading, target: some SenderAnswerTarget, context: ChannelHandlerContext) {
        answer(reading, target: target, context: context, stream: .channel(context.channel), connectionChannel: context.channel)
    }

    /// Starts a push's answer, for `target` to write with `context`; `stream` is what it came on, on the client's
    /// `connectionChannel`.
    func answer(
        _ reading: SenderRequestReading, target: some SenderAnswerTarget, context: ChannelHandlerContext, stream: RequestStream,
        connectionChannel: any Channel
    ) {
        reading.answer(
            endpoint: endpoint, target: target, context: context, stream: stream, connectionChannel: connectionChannel, client: client,
            clientConnection: clientConnection,
            isHTTP2: isHTTP2, answers: answers, logger: logger)
    }
}

/// A handler that writes a push's answer on its event loop, given the context it read the push with.
protocol SenderAnswerTarget: AnyObject {
    func write(_ answer: SenderAnswer, context: ChannelHandlerContext)
}

extension SenderAnswer {
    /// The answer's head as Hummingbird would write it: with its `Date` and `Server`, and the body's length.
    var response: HTTPResponse {
        var response = HTTPResponse(status: status, headerFields: headers)
        response.headerFields[.contentLength] = String(body?.readableBytes ?? 0)
        response.headerFields[.date] = ResponseDate.now
        response.headerFields[.server] = "Huddle"
        return response
    }

    /// Writes the answer as parts of an HTTP response, and flushes it.
    func write(to context: ChannelHandlerContext) {
        context.write(NIOAny(HTTPResponsePart.head(response)), promise: nil)
        if let body { context.write(NIOAny(HTTPResponsePart.body(body)), promise: nil) }
        context.writeAndFlush(NIOAny(HTTPResponsePart.end(nil)), promise: nil)
    }
}
