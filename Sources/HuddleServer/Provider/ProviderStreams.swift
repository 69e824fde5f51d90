import HTTPTypes
import NIOCore
import NIOHPACK
import NIOHTTP2

/// Serves the pushes of an HTTP/2 connection on the connection's own pipeline, frame by frame, between the HTTP/2
/// handler and the stream multiplexer: a push's stream gets no child channel, no pipeline and no handlers, which
/// cost a third of the server's CPU per push (`perf record` of the check-only route, a child channel per stream).
///
/// A stream whose first HEADERS ask for a push (``ProviderRequestReading``) is read and answered here
/// (``PushStream``); every other stream's frames, and the connection's, go on to the multiplexer, which gives the
/// stream a channel that Hummingbird answers. A push's stream keeps the deadlines every stream of the port has
/// (``StreamLifetime`` has them for the others):
/// - the request must arrive whole within `--request-timeout` of the stream's opening, else the stream is reset;
/// - the answer's body must be taken by the client within `--write-timeout` (``ConnectionStreams``), and counts
///   toward what the connection may hold for a client that does not read;
/// - an answer that ends before its request did is followed by RST_STREAM `NO_ERROR` (RFC 9113 §8.1).
final class ProviderStreams: ChannelDuplexHandler {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private let pushes: PushAnswering
    let connection: ConnectionStreams
    private let requestTimeout: TimeAmount
    private var streams: [HTTP2StreamID: PushStream] = [:]
    /// Streams this read opened whose requests have not ended: their deadlines are set when the read completes.
    private var unfinished: [PushStream] = []
    private(set) var context: ChannelHandlerContext?
    private var isReading = false
    private var flushPending = false

    init(pushes: PushAnswering, connection: ConnectionStreams, requestTimeout: TimeAmount) {
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
        let stream = PushStream(id: frame.streamID, reading: reading, owner: self)
        streams[frame.streamID] = stream
        connection.streamBusy()
        if headers.endStream {
            stream.receive(frame.payload)
        } else {
            unfinished.append(stream)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        isReading = false
        for stream in unfinished { stream.startRequestDeadline(at: stream.opened + requestTimeout) }
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
    func answer(_ reading: ProviderRequestReading, stream: PushStream) {
        guard let context else { return }
        pushes.answer(
            reading, target: stream, context: context, stream: .push(NIOLoopBound(stream, eventLoop: context.eventLoop)),
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

/// One push on an HTTP/2 connection (``ProviderStreams``), from its HEADERS to its stream's close, on the
/// connection's event loop.
final class PushStream: ProviderAnswerTarget, HeldAnswers {
    /// Stream window granted back to a client still sending a push's body, in steps this big, so that a body too long
    /// to keep is read on (and dropped) up to ``ProviderRequestReading/longestDropped``: a push's body, far shorter,
    /// never costs a WINDOW_UPDATE.
    private static let windowStep = 32_768

    let id: HTTP2StreamID
    let opened = NIODeadline.now()
    /// Held strongly: a push's task may hold its stream past the connection's close, and its answer then finds the
    /// stream closed, its connection's bookkeeping still there.
    private let owner: ProviderStreams
    /// The request being read; `nil` once its answer is under way.
    private var reading: ProviderRequestReading?
    private var requestEnded = false
    private var answerEnded = false
    private var isOpen = true
    private var resetSent = false
    private var isBusy = true
    private var requestTimer: Scheduled<Void>?
    /// Body bytes read since the client was last given window for them.
    private var unacknowledged = 0
    /// Window given back to the client so far.
    private var granted = 0
    /// What a fault's GOAWAY waits for: the stream's close.
    private var closeWaiters: [@Sendable () -> Void] = []
    /// The answer's writes that the client has not taken yet.
    private(set) var untaken = UntakenWrites()

    init(id: HTTP2StreamID, reading: ProviderRequestReading, owner: ProviderStreams) {
        self.id = id
        self.reading = reading
        self.owner = owner
    }

    // MARK: The request

    func receive(_ payload: HTTP2Frame.FramePayload) {
        switch payload {
        case .headers(let headers):
            // The request's first HEADERS that end it, or its trailers. A second head is no request's (as a stream
            // channel's codec takes it): the stream is reset.
            guard headers.endStream else { return reset(.cancel) }
            endRequest()
            if let reading = reading.take() { owner.answer(reading, stream: self) }
        case .data(let frame):
            if frame.endStream { endRequest() }
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

    private func endRequest() {
        requestEnded = true
        requestTimer?.cancel()
        requestTimer = nil
    }

    private func grantWindowIfNeeded() {
        // Window is given back up to about the longest body read (padding counts against the window, not the body):
        // a client that pads its frames cannot draw more than that, and what it holds back the request deadline ends.
        guard unacknowledged >= Self.windowStep, granted < ProviderRequestReading.longestDropped else { return }
        owner.write(.windowUpdate(windowSizeIncrement: unacknowledged), on: id)
        granted += unacknowledged
        unacknowledged = 0
        owner.flush()
    }

    func startRequestDeadline(at deadline: NIODeadline) {
        guard !requestEnded, isOpen, requestTimer == nil, let eventLoop = owner.context?.eventLoop else { return }
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        requestTimer = eventLoop.scheduleTask(deadline: deadline) {
            let stream = bound.value
            stream.requestTimer = nil
            if !stream.requestEnded { stream.reset(.cancel) }
        }
    }

    /// Calls `body` once the stream has closed, at once if it has.
    func whenClosed(_ body: @escaping @Sendable () -> Void) {
        if isOpen { closeWaiters.append(body) } else { body() }
    }

    // MARK: The answer

    func write(_ answer: ProviderAnswer, context: ChannelHandlerContext) {
        // A stream reset meanwhile takes no answer: frames after its RST_STREAM would be a stream error, which closes
        // the connection.
        guard isOpen, !answerEnded, !resetSent else { return }
        if owner.connection.isWaitingForAPush, answer.acceptsSender { owner.connection.pushAccepted() }
        let headers = HPACKHeaders(answer: answer)
        answerEnded = true
        // When the answer's end has gone out: needed for a body the client must take, or a request to stop after it.
        var written: EventLoopPromise<Void>?
        if let body = answer.body {
            owner.write(.headers(.init(headers: headers)), on: id)
            let bytes = body.readableBytes
            guard owner.connection.mayHold(bytes, besides: untaken.bytes) else {
                // The connection holds as much as it may for a client that does not read: this answer is dropped.
                return reset(.cancel)
            }
            let taken = context.eventLoop.makePromise(of: Void.self)
            hold(bytes, until: taken.futureResult)
            owner.write(.data(.init(data: .byteBuffer(body), endStream: true)), on: id, promise: taken)
            written = taken
        } else {
            if !requestEnded { written = context.eventLoop.makePromise() }
            owner.write(.headers(.init(headers: headers, endStream: true)), on: id, promise: written)
        }
        becomeIdle()
        if let written, !requestEnded {
            // The reset goes once the answer's end has gone out: sent before it, it would drop the answer's frames still
            // waiting for the client's window.
            written.futureResult.assumeIsolated().whenSuccess { [self] in if !requestEnded { reset(.noError) } }
        }
        owner.flush()
    }

    private func hold(_ bytes: Int, until taken: EventLoopFuture<Void>) {
        let wasEmpty = untaken.isEmpty
        untaken.add(bytes: bytes, at: .now())
        owner.connection.held(bytes)
        if wasEmpty { owner.connection.watch(self) }
        taken.assumeIsolated().whenComplete { [self] _ in
            untaken.take(bytes: bytes)
            owner.connection.released(bytes)
            if untaken.isEmpty { owner.connection.stopWatching(self) }
        }
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
        // Nothing more happens on it: its connection's deadlines apply again at once, not only once the reset has left
        // (a client that does not read its socket leaves the reset waiting in the HTTP/2 handler's buffer).
        becomeIdle()
    }

    /// The stream has closed (both ends, or a reset either way), or its connection has.
    func closed() {
        guard isOpen else { return }
        isOpen = false
        reading = nil
        requestTimer?.cancel()
        requestTimer = nil
        becomeIdle()
        owner.connection.stopWatching(self)
        let waiters = closeWaiters
        closeWaiters = []
        for waiter in waiters { waiter() }
    }

    private func becomeIdle() {
        guard isBusy else { return }
        isBusy = false
        owner.connection.streamIdle()
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
    /// A push's answer as HTTP/2 HEADERS, with what every answer carries (``ProviderAnswer/response``).
    init(answer: ProviderAnswer) {
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
