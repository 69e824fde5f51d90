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
        let resumingAfter = try EventStreamResponse.resumePoint(request)
        let view = CenterView(viewer: try request.viewer(), format: format, notificationLimit: try request.notificationLimit())
        let slot = try slots.open(device: session.token)
        let subscription = await session.subscribe(view, resumingAfter: resumingAfter, bufferBytes: bufferBytes)
        return EventStreamResponse.make(holding: (slot, subscription), events: subscription.events, end: subscription.end)
    }

    @Sendable func groupStream(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (_, session) = try await DeviceAuthorization(store: store, centers: centers).authorize(request, context)
        let text = try context.parameters.require("group")
        guard let group = GroupID(text.removingPercentEncoding ?? text) else { throw APIError(.badRequest, "\"\(text)\" is not a group id") }
        let viewer = try request.viewer()
        let slot = try slots.open(device: session.token)
        let subscription = await session.subscribe(group, viewer: viewer, bufferBytes: bufferBytes)
        return EventStreamResponse.make(holding: (slot, subscription), events: subscription.events, end: subscription.end)
    }
}
