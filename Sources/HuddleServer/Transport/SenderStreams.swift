import HTTPTypes
import NIOCore
import NIOHPACK
import NIOHTTP2

/// Serves the senders' messages of an HTTP/2 connection (APNs pushes, FCM sends: ``SenderRoutes``) on the connection's
/// own pipeline, frame by frame, between the HTTP/2 handler and the stream multiplexer: a message's stream gets no child
/// channel, no pipeline and no handlers, which cost a third of the server's CPU per push (`perf record` of the
/// check-only route, a child channel per stream).
///
/// A stream whose first HEADERS ask for a push (``SenderRequestReading``) is read and answered here
/// (``SenderStream``); every other stream's frames, and the connection's, go on to the multiplexer, which gives the
/// stream a channel that Hummingbird answers. A push's stream lives the port's one stream life (``StreamLife``, which
/// ``StreamLifetime`` lives for the others), in frames: past the request's deadline or the write deadline the stream is
/// reset, and an answer that ends before its request did is followed by RST_STREAM `NO_ERROR` (RFC 9113 §8.1).
final class SenderStreams: ChannelDuplexHandler {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private let pushes: SenderRoutes
    let connection: ConnectionStreams
    private let requestTimeout: TimeAmount
    private var streams: [HTTP2StreamID: SenderStream] = [:]
    /// Streams this read opened whose requests have not ended: their deadlines are set when the read completes.
    private var unfinished: [SenderStream] = []
    private(set) var context: ChannelHandlerContext?
    private var isReading = false
    private var flushPending = false

    init(pushes: SenderRoutes, connection: ConnectionStreams, requestTimeout: TimeAmount) {
        self.pushes = pushes
        self.connection = connection
        self.requestTimeout = requestTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        closeAll()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        closeAll()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        isReading = true
        let frame = unwrapInboundIn(data)
        if let stream = streams[frame.streamID] {
            stream.receive(frame.payload)
            return
        }
        guard frame.streamID != .rootStream, case .headers(let headers) = frame.payload, let head = HTTPRequest(http2: headers.headers),
            let reading = pushes.reading(head)
        else {
            context.fireChannelRead(data)
            return
        }
        let stream = SenderStream(id: frame.streamID, reading: reading, owner: self, eventLoop: context.eventLoop)
        streams[frame.streamID] = stream
        if headers.endStream {
            stream.receive(frame.payload)
        } else {
            unfinished.append(stream)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        isReading = false
        for stream in unfinished { stream.startRequestDeadline(requestTimeout) }
        unfinished.removeAll(keepingCapacity: true)
        if flushPending {
            flushPending = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let closed = event as? StreamClosedEvent, let stream = streams.removeValue(forKey: closed.streamID) {
            stream.closed()
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Starts a push's answer, for `stream` to write.
    func answer(_ reading: SenderRequestReading, stream: SenderStream) {
        guard let context else { return }
        pushes.answer(
            reading, target: stream, context: context, stream: .push(NIOLoopBound(stream as any ConnectionServedStream, eventLoop: context.eventLoop)),
            connectionChannel: context.channel)
    }

    /// Writes a push stream's frame.
    func write(_ payload: HTTP2Frame.FramePayload, on id: HTTP2StreamID, promise: EventLoopPromise<Void>? = nil) {
        guard let context else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: payload)), promise: promise)
    }

    /// Flushes, at once or (while reading) once the read is done.
    func flush() {
        if isReading { flushPending = true } else { context?.flush() }
    }

    private func closeAll() {
        let open = streams.values
        streams = [:]
        unfinished = []
        for stream in open { stream.closed() }
    }
}

/// One sender's message on an HTTP/2 connection (``SenderStreams``), from its HEADERS to its stream's close, on the
/// connection's event loop.
final class SenderStream: SenderAnswerTarget, LivesStreamLife, ConnectionServedStream {
    /// Stream window granted back to a client still sending a push's body, in steps this big, so that a body too long
    /// to keep is read on (and dropped) up to ``SenderRequestReading/longestDropped``: a push's body, far shorter,
    /// never costs a WINDOW_UPDATE.
    private static let windowStep = 32_768

    let id: HTTP2StreamID
    var life: StreamLife
    /// Held strongly: a push's task may hold its stream past the connection's close, and its answer then finds the
    /// stream closed, its connection's bookkeeping still there.
    private let owner: SenderStreams
    /// The request being read; `nil` once its answer is under way.
    private var reading: SenderRequestReading?
    private var isOpen = true
    private var resetSent = false
    /// Body bytes read since the client was last given window for them.
    private var unacknowledged = 0
    /// Window given back to the client so far.
    private var granted = 0
    /// What a fault's GOAWAY waits for: the stream's close.
    private var closeWaiters: [@Sendable () -> Void] = []
    /// A push's stream opening now.
    init(id: HTTP2StreamID, reading: SenderRequestReading, owner: SenderStreams, eventLoop: any EventLoop) {
        self.id = id
        self.reading = reading
        self.owner = owner
        life = StreamLife(connection: owner.connection, eventLoop: eventLoop)
    }

    // MARK: The request

    func receive(_ payload: HTTP2Frame.FramePayload) {
        switch payload {
        case .headers(let headers):
            // The request's first HEADERS that end it, or its trailers. A second head is no request's (as a stream
            // channel's codec takes it): the stream is reset.
            guard headers.endStream else { return reset(.cancel) }
            life.requestDidEnd()
            if let reading = reading.take() { owner.answer(reading, stream: self) }
        case .data(let frame):
            if frame.endStream { life.requestDidEnd() }
            // Once the answer is under way, what comes of the request is nobody's: dropped.
            guard var reading = reading.take() else { return }
            if case .byteBuffer(var bytes) = frame.data {
                unacknowledged += bytes.readableBytes + (frame.paddingBytes.map { $0 + 1 } ?? 0)
                reading.append(&bytes)
            }
            if frame.endStream || reading.isCutShort {
                owner.answer(reading, stream: self)
            } else {
                self.reading = reading
                grantWindowIfNeeded()
            }
        default:
            // A reset (its close follows), WINDOW_UPDATE and PRIORITY: the HTTP/2 handler has done what they ask.
            break
        }
    }

    private func grantWindowIfNeeded() {
        // Window is given back up to about the longest body read (padding counts against the window, not the body):
        // a client that pads its frames cannot draw more than that, and what it holds back the request deadline ends.
        guard unacknowledged >= Self.windowStep, granted < SenderRequestReading.longestDropped else { return }
        owner.write(.windowUpdate(windowSizeIncrement: unacknowledged), on: id)
        granted += unacknowledged
        unacknowledged = 0
        owner.flush()
    }

    /// Sets the request's deadline, `timeout` after the stream opened: past it, the stream is reset.
    func startRequestDeadline(_ timeout: TimeAmount) {
        guard isOpen else { return }
        scheduleRequestDeadline(timeout)
    }

    func requestDeadlinePassed() {
        reset(.cancel)
    }

    /// Calls `body` once the stream has closed, at once if it has.
    func whenClosed(_ body: @escaping @Sendable () -> Void) {
        if isOpen { closeWaiters.append(body) } else { body() }
    }

    // MARK: The answer

    func write(_ answer: SenderAnswer, context: ChannelHandlerContext) {
        // A stream reset meanwhile takes no answer: frames after its RST_STREAM would be a stream error, which closes
        // the connection.
        guard isOpen, !life.answerEnded, !resetSent else { return }
        if answer.acceptsSender { life.senderAccepted() }
        let headers = HPACKHeaders(answer: answer)
        life.answerDidEnd()
        // When the answer's end has gone out: needed for a body the client must take, or a request to stop after it.
        var written: EventLoopPromise<Void>?
        if let body = answer.body {
            owner.write(.headers(.init(headers: headers)), on: id)
            let bytes = body.readableBytes
            guard life.mayHold(bytes) else {
                // The connection holds as much as it may for a client that does not read: this answer is dropped.
                return reset(.cancel)
            }
            let taken = context.eventLoop.makePromise(of: Void.self)
            holdAnswer(bytes, until: taken.futureResult)
            owner.write(.data(.init(data: .byteBuffer(body), endStream: true)), on: id, promise: taken)
            written = taken
        } else {
            if !life.requestEnded { written = context.eventLoop.makePromise() }
            owner.write(.headers(.init(headers: headers, endStream: true)), on: id, promise: written)
        }
        if let written, life.answerStopsRequest {
            // The reset goes once the answer's end has gone out: sent before it, it would drop the answer's frames still
            // waiting for the client's window.
            written.futureResult.assumeIsolated().whenSuccess { [self] in if life.answerStopsRequest { reset(.noError) } }
        }
        owner.flush()
    }

    /// Resets the stream (RST_STREAM `CANCEL`): its client did not take its answer in time.
    func reset() {
        reset(.cancel)
    }

    private func reset(_ code: NIOHTTP2.HTTP2ErrorCode) {
        guard isOpen, !resetSent else { return }
        resetSent = true
        reading = nil
        owner.write(.rstStream(code), on: id)
        owner.flush()
        life.becomeIdle()
    }

    /// The stream has closed (both ends, or a reset either way), or its connection has.
    func closed() {
        guard isOpen else { return }
        isOpen = false
        reading = nil
        lifeEnded()
        let waiters = closeWaiters
        closeWaiters = []
        for waiter in waiters { waiter() }
    }
}

extension HTTPRequest {
    /// A request from its HTTP/2 HEADERS, which the HTTP/2 handler has checked (RFC 9113 §8.3: the pseudo-header fields
    /// come first, each once, and a request has `:method`); `nil` for one this type cannot hold (an unknown method, an
    /// extended CONNECT), which the stream multiplexer's codec then refuses. Fields whose names HTTP does not allow are
    /// left out.
    init?(http2 headers: HPACKHeaders) {
        var method: HTTPRequest.Method?
        var scheme: String?
        var authority: String?
        var path: String?
        var fields = HTTPFields()
        fields.reserveCapacity(headers.count)
        for (name, value, _) in headers {
            if name.utf8.first == UInt8(ascii: ":") {
                switch name {
                case ":method": method = HTTPRequest.Method(value)
                case ":scheme": scheme = value
                case ":authority": authority = value
                case ":path": path = value
                default: return nil
                }
            } else if let fieldName = HTTPField.Name(name) {
                fields.append(HTTPField(name: fieldName, value: value))
            }
        }
        guard let method else { return nil }
        self.init(method: method, scheme: scheme, authority: authority, path: path, headerFields: fields)
    }
}

extension HPACKHeaders {
    /// A push's answer as HTTP/2 HEADERS, with what every answer carries (``SenderAnswer/response``).
    init(answer: SenderAnswer) {
        let response = answer.response
        self.init()
        reserveCapacity(response.headerFields.count + 1)
        add(name: ":status", value: String(response.status.code))
        for field in response.headerFields {
            let indexing: HPACKIndexing =
                switch field.indexingStrategy {
                case .avoid: .nonIndexable
                case .disallow: .neverIndexed
                default: .indexable
                }
            add(name: field.name.canonicalName, value: field.value, indexing: indexing)
        }
    }
}
