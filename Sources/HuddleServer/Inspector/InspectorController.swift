import Foundation
import HTTPTypes
import HuddleAPNs
import HuddleCore
import Hummingbird
import NIOCore
import Synchronization

/// The provider request inspector: every request to `/3/device/…`, with its answer, through the admin API
/// (a list with filters, one request, a live stream) and on the page `/requests`.
///
/// It takes the admin token as a bearer token, or the home page's admin cookie (so the page and its live
/// stream work in a browser).
struct InspectorController {
    let log: SenderRequestLog
    let pages: WebPages
    let centers: DeviceCenters
    let access: AdminAccess
    /// The server's live streams, which inspector streams count among.
    let slots: StreamSlots
    let clock: @Sendable () -> Date

    /// The most records one list answers with.
    static let maximumLimit = 1_000
    /// Inspector streams count as the streams of one pretend device.
    static let streamSlotKey = "request inspector"

    func addRoutes(to router: Router<HuddleRequestContext>) {
        router.get("/v1/admin/requests", use: list)
        router.delete("/v1/admin/requests", use: clear)
        router.get("/v1/admin/requests/stream", use: stream)
        router.get("/v1/admin/requests/:id", use: one)
        router.get("/requests", use: page)
    }

    /// `GET /requests`: the page, in the viewer's language; for a viewer not signed in as the admin, the page
    /// that says where to sign in, without the script that would read the history.
    @Sendable func page(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let page = InspectorPage(
            languages: PageLanguages.requested(by: request), chosenLanguages: request.uri.queryParameters["languages"].map(String.init),
            signedIn: access.isSignedIn(request))
        return Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: pages.requests(page))))
    }

    /// `GET /v1/admin/requests?device=&topic=&status=&reason=&push-type=&apns-id=&unique-id=&since=&until=&after=&limit=`:
    /// newest first. With `wait=<seconds>`, answers as soon as `count` requests (default 1) match, or when the
    /// time is up; `wait` then says which: `{"count", "found", "timedOut"}`. An assertion in CI that waits
    /// for what it checks instead of sleeping.
    @Sendable func list(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        try await access.authorize(request, context: context, acceptingCookie: true)
        let filter = try Self.filter(request)
        var limit = try request.number("limit", in: 1...Self.maximumLimit) ?? 100
        var waited: JSONValue?
        if let wait = try request.waitDuration() {
            let count = try request.number("count", in: 1...Self.maximumLimit) ?? 1
            limit = max(limit, count)
            // Held as a stream's slot is, so that waits are bounded as streams are.
            let slot = try slots.open(device: Self.streamSlotKey)
            defer { withExtendedLifetime(slot) {} }
            let found = await waitForRecords(filter, count: count, within: wait, whileOpen: context.channel)
            waited = .object(JSONObject([("count", .integer(Int64(count))), ("found", .integer(Int64(found))), ("timedOut", .bool(found < count))]))
        }
        let now = clock()
        let records = log.records(filter, limit: limit)
        var body = JSONObject([("requests", .array(records.map { $0.json(now: now) })), ("last", .integer(Int64(log.lastID)))])
        if let waited { body["wait"] = waited }
        return .json(.object(body))
    }

    /// Waits until `count` records match `filter`, woken by each record, for at most `limit` and while the
    /// client's `channel` is open. Each record is
    /// looked at once (from a position, as a live viewer reads), not the whole history at each wake-up.
    /// - Returns: how many matched when it stopped waiting (at most `count`).
    private func waitForRecords(
        _ filter: SenderRequestLog.Filter, count: Int, within limit: Duration, whileOpen channel: any Channel
    ) async -> Int {
        let found = Mutex(0)
        _ = await EventDeadline.happens(within: limit, whileOpen: channel) { [log] in
            var position: UInt64 = 0
            // The first wake-up comes at once, so what is there already counts.
            for await _ in log.wakeUps() {
                let (records, reached) = log.records(after: position, admittedBy: filter, limit: count - found.withLock { $0 })
                position = reached
                if found.withLock({ $0 += records.count; return $0 >= count }) { return true }
            }
            return false
        }
        return found.withLock { $0 }
    }

    /// `DELETE /v1/admin/requests`: forgets the history, so that a test's assertions see its own requests only.
    @Sendable func clear(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        try await access.authorize(request, context: context, acceptingCookie: false)
        log.clear()
        return Response(status: .noContent)
    }

    /// `GET /v1/admin/requests/<id>`: one request, with the group its notification is in now.
    @Sendable func one(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        try await access.authorize(request, context: context, acceptingCookie: true)
        let text = try context.parameters.require("id")
        guard let id = UInt64(text) else { throw APIError(.badRequest, "request id: expected a number, found \"\(text.prefix(40))\"") }
        guard let record = log.record(id: id) else {
            throw APIError(.notFound, "no request \(id) in the history (it keeps the last \(log.configuration.maximumRecords))")
        }
        var group: String?
        if let token = record.deviceToken, let app = record.storedApp, let identifier = record.storedIdentifier,
            let session = try await centers.session(for: token)
        {
            group = await session.read { center in
                center.notification(identifier, app: app).map { center.groupID(for: $0.content, identifier: identifier, app: app).description }
            }
        }
        return .json(record.json(now: clock(), group: group))
    }

    /// `GET /v1/admin/requests/stream`: Server-Sent Events, one `request` event per request as it is
    /// answered (those after `Last-Event-ID` or `after` first), with the list's filters. It counts as a live
    /// stream of the server (`--max-streams`; `--max-streams-per-device` bounds inspector streams together).
    @Sendable func stream(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        try await access.authorize(request, context: context, acceptingCookie: true)
        var filter = try Self.filter(request)
        // Where the stream starts is its own position, not a filter.
        filter.after = nil
        let start = try EventStreamResponse.resumePoint(request) ?? log.lastID
        let slot = try slots.open(device: Self.streamSlotKey)
        let cursor = Cursor(log: log, filter: filter, position: start, clock: clock)
        // A stream opened with the session cookie ends at the first wake-up (a heartbeat at the latest) after
        // the session does: signing out stops what it opened.
        let bySession = Secrets.bearer(request) == nil
        let (wakeUps, end) = log.endableWakeUps()
        let events = wakeUps.prefix { [access] _ in !bySession || access.isSignedIn(request) }
            .compactMap { _ in cursor.eventsSinceLastTaken() }
        return EventStreamResponse.make(holding: slot, events: events, end: end)
    }

    /// Where a live viewer of the inspector is in the history. The records its filter admits that it has not
    /// been sent yet are encoded when it is woken, on its own stream's task.
    private final class Cursor: Sendable {
        private let log: SenderRequestLog
        private let filter: SenderRequestLog.Filter
        private let clock: @Sendable () -> Date
        private let position: Mutex<UInt64>

        init(log: SenderRequestLog, filter: SenderRequestLog.Filter, position: UInt64, clock: @escaping @Sendable () -> Date) {
            self.log = log
            self.filter = filter
            self.clock = clock
            self.position = Mutex(position)
        }

        /// The next records as events, oldest first, at most a list's worth (the next wake-up takes the
        /// rest); a heartbeat comment when nothing was recorded since (a heartbeat's wake-up); `nil` when
        /// requests were recorded but the filter admits none of them.
        func eventsSinceLastTaken() -> ByteBuffer? {
            let from = position.withLock { $0 }
            let (records, reached) = log.records(after: from, admittedBy: filter, limit: InspectorController.maximumLimit)
            position.withLock { $0 = reached }
            guard !records.isEmpty else { return reached == from ? ServerSentEvent.heartbeat : nil }
            let now = clock()
            var text = ""
            for record in records { text += ServerSentEvent.event(id: record.id, name: "request", data: record.json(now: now).jsonText()) }
            return ByteBuffer(string: text)
        }
    }

    static func filter(_ request: Request) throws -> SenderRequestLog.Filter {
        let query = request.uri.queryParameters
        func text(_ name: String) throws -> String? {
            guard let value = query[Substring(name)].map(String.init), !value.isEmpty else { return nil }
            guard value.utf8.count <= 256 else { throw APIError(.badRequest, "\(name): at most 256 bytes") }
            return value
        }
        func date(_ name: String) throws -> Date? {
            guard let value = try text(name) else { return nil }
            guard let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: value.contains(".")).parse(value) else {
                throw APIError(.badRequest, "\(name): expected a time such as 2026-11-23T17:00:00Z, found \"\(value)\"")
            }
            return date
        }
        return SenderRequestLog.Filter(
            device: try text("device")?.lowercased(), topic: try text("topic"), status: try request.number("status", in: 100...599),
            reason: try text("reason"), since: try date("since"), until: try date("until"),
            after: try request.number("after", in: 0...Int.max).map(UInt64.init), pushType: try text("push-type"),
            messageID: try text("apns-id")?.lowercased(), uniqueID: try text("unique-id")?.lowercased())
    }

}
