import Foundation
import HTTPTypes
import HuddleCore
import Hummingbird
import NIOCore
import Synchronization

/// Live streams as Server-Sent Events (`text/event-stream`):
///
/// - `GET /v1/devices/{token}/stream`: the device's center as it changes (``CenterPublisher``), for a viewer
///   (`languages`, `locked`, `limit`) in JSON or the web page's HTML (`format`), resumable with `Last-Event-ID`
///   (or `after`, for a first connection that already has a rendering).
/// - `GET /v1/devices/{token}/groups/{group}/stream`: one group as a content extension sees it: its
///   leading notification, then every later delivery to it and every removal from it.
struct StreamController {
    let centers: DeviceCenters
    let store: any NotificationStore
    let slots: StreamSlots
    /// How many bytes of events may wait for one stream's client.
    let bufferBytes: Int
    /// How long one write may wait for the client to read.
    let writeTimeout: Duration

    /// The shortest time between two writes to one stream: 50 updates a second, faster than a page can
    /// show them.
    static let minimumWriteInterval = Duration.milliseconds(20)

    func addRoutes(to router: Router<HuddleRequestContext>) {
        router.get("/v1/devices/:token/stream", use: centerStream)
        router.get("/v1/devices/:token/groups/:group/stream", use: groupStream)
    }

    @Sendable func centerStream(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await DeviceAuthorization(store: store, centers: centers).authorize(request, context)
        let format: CenterView.Format
        switch request.uri.queryParameters["format"] {
        case nil, "json": format = .json
        case "html": format = .html
        case let other?: throw APIError(.badRequest, "format: expected json or html, found \"\(other)\"")
        }
        let resumingAfter = try Self.resumePoint(request)
        let view = CenterView(viewer: try request.viewer(), format: format, notificationLimit: try request.notificationLimit())
        let slot = try slots.open(device: session.token)
        let subscription = await session.subscribe(view, resumingAfter: resumingAfter, bufferBytes: bufferBytes)
        return eventStream(holding: slot, subscription, context: context)
    }

    @Sendable func groupStream(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await DeviceAuthorization(store: store, centers: centers).authorize(request, context)
        let text = try context.parameters.require("group")
        guard let group = GroupID(text.removingPercentEncoding ?? text) else { throw APIError(.badRequest, "\"\(text)\" is not a group id") }
        let viewer = try request.viewer()
        let slot = try slots.open(device: session.token)
        let subscription = await session.subscribe(group, viewer: viewer, bufferBytes: bufferBytes)
        return eventStream(holding: slot, subscription, context: context)
    }

    /// The change a reconnecting client has: `Last-Event-ID` (sent by `EventSource` on its own), else the
    /// `after` query parameter.
    private static func resumePoint(_ request: Request) throws -> UInt64? {
        guard let text = request.headers[HTTPField.Name("Last-Event-ID")!] ?? request.uri.queryParameters["after"].map(String.init),
            !text.isEmpty
        else { return nil }
        guard let number = UInt64(text.trimmingCharacters(in: .whitespaces)) else {
            throw APIError(.badRequest, "Last-Event-ID: expected a change number, found \"\(text)\"")
        }
        return number
    }

    /// A `text/event-stream` response that writes a subscription's events until the client goes away,
    /// holding the stream's slot and place until the response is done with (written to the end, or dropped
    /// unwritten). Whatever waits is written at once: a client that fell behind catches up in one write.
    ///
    /// A client that stops reading would leave a write waiting forever, and its slot taken: a write that
    /// waits longer than ``writeTimeout`` closes the request's channel, which ends the write.
    private func eventStream(
        holding slot: StreamSlots.Slot, _ subscription: Subscription, context: HuddleRequestContext
    ) -> Response {
        let channel = context.channel
        let writeTimeout = writeTimeout
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store", HTTPField.Name("X-Accel-Buffering")!: "no"],
            body: ResponseBody { writer in
                defer { withExtendedLifetime((slot, subscription)) {} }
                let progress = WriteProgress()
                let watchdog = Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: writeTimeout / 4)
                        if progress.hasWaited(longerThan: writeTimeout) {
                            channel.close(promise: nil)
                            return
                        }
                    }
                }
                defer { watchdog.cancel() }
                var watched: any ResponseBodyWriter = WatchedWriter(base: writer, progress: progress)
                // Reconnect quickly after a server restart.
                try await watched.write(ByteBuffer(string: "retry: 1000\n\n"))
                var lastWrite: ContinuousClock.Instant?
                while true {
                    // A write soon after another waits for the rest of the interval, gathering what arrives
                    // meanwhile: under a burst of changes each stream writes (and its client wakes) at most
                    // 1 / interval times a second, and a quiet stream's next change still goes at once.
                    if let lastWrite, ContinuousClock.now < lastWrite + Self.minimumWriteInterval {
                        try? await Task.sleep(until: lastWrite + Self.minimumWriteInterval)
                    }
                    guard let events = await subscription.queue.next() else { break }
                    try await watched.write(events)
                    lastWrite = .now
                }
                try await watched.finish(nil)
            })
    }
}

/// When the write in progress began, if one is.
private final class WriteProgress: Sendable {
    private let startedAt = Mutex<ContinuousClock.Instant?>(nil)

    func begin() { startedAt.withLock { $0 = .now } }
    func end() { startedAt.withLock { $0 = nil } }

    func hasWaited(longerThan limit: Duration) -> Bool {
        startedAt.withLock { $0.map { ContinuousClock.now - $0 > limit } ?? false }
    }
}

/// A response writer that tells ``WriteProgress`` when each write begins and ends.
private struct WatchedWriter: ResponseBodyWriter {
    var base: any ResponseBodyWriter
    let progress: WriteProgress

    mutating func write(_ buffer: ByteBuffer) async throws {
        progress.begin()
        defer { progress.end() }
        try await base.write(buffer)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await base.finish(trailingHeaders)
    }
}
