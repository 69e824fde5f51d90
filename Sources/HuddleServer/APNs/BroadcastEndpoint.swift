import Foundation
import HTTPTypes
import HuddleAPNs
import HuddleCore
import Hummingbird
import Logging
import NIOCore

/// Broadcast channels and broadcasts (iOS 18), on Apple's paths (docs/broadcasts.md):
///
/// - the channel-management API: `POST /1/apps/<bundle-id>/channels` creates a channel, `GET` and `DELETE` of
///   the same path read and delete the one named by `apns-channel-id`, `GET /1/apps/<bundle-id>/all-channels`
///   lists them;
/// - `POST /4/broadcasts/apps/<bundle-id>` sends one update to every Live Activity listening on a channel.
///
/// Both are served on the provider port by path. Apple serves the channel API on hosts of its own
/// (``APNsEnvironment/channelHost``); a client names them as its `:authority` to choose the environment, as
/// it names `api.push.apple.com` for pushes.
struct BroadcastEndpoint: RouterMiddleware {
    typealias Context = HuddleRequestContext

    /// A channel's create request is a small JSON object.
    static let maximumChannelRequestSize = 1024
    /// A broadcast's payload (Apple's broadcast page is cut short in the stored copy; 5 KB is what the
    /// clients that implement broadcasts allow, docs/broadcasts.md).
    static let maximumBroadcastSize = 5120
    static let requestIDField = HTTPField.Name("apns-request-id")!
    static let channelIDField = HTTPField.Name("apns-channel-id")!

    let provider: ProviderEndpoint
    let maximumChannelsPerApp: Int

    private enum Route {
        case channels(app: String)
        case allChannels(app: String)
        case broadcast(app: String)
    }

    /// A request as the routes take it: its headers, the stream and connection it came on, and the connection's
    /// client certificate (read once per request).
    private struct Incoming {
        let request: ProviderRequest
        let exchange: ProviderExchange
        let certificate: PresentedCertificate
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard path.hasPrefix("/1/") || path.hasPrefix("/4/") else { return try await next(request, context) }
        let started = ContinuousClock.now
        let exchange = ProviderExchange(request, path: path, context: context, clientConnection: await ClientConnection.of(context.connectionChannel))
        let incoming = Incoming(
            request: ProviderRequest(method: exchange.method, path: path, headers: exchange.headers), exchange: exchange,
            certificate: await provider.certificate(of: exchange))
        var record = provider.startRecord(incoming.request, exchange: exchange)
        incoming.certificate.note(in: &record)
        record.environment = ProviderEndpoint.environment(of: exchange.authority)
        let sentRequestID = incoming.request.first("apns-request-id")
        let requestID = sentRequestID.flatMap(ProviderRequestCheck.canonicalUUID) ?? UUID.randomLowercasedString()
        var headers = HTTPFields()
        headers[Self.requestIDField] = requestID
        let response: Response
        do {
            if ProviderRequestCheck.repeatsAny(of: Self.singleHeaders, in: incoming.request) { throw APNsReason.duplicateHeaders }
            for name in ["apns-request-id", "apns-id"] {
                if let sent = incoming.request.first(name), ProviderRequestCheck.canonicalUUID(sent) == nil {
                    throw ProviderRefusal(reason: .badMessageId, description: "\(name) must be a UUID, found \"\(sent.prefix(60))\"")
                }
            }
            guard let route = Self.route(path) else { throw APNsReason.badPath }
            response = try await answer(route, incoming, headers: headers, record: &record)
        } catch {
            if !ProviderRefusal.isAnswer(error) { context.logger.error("broadcast request failed: \(error)") }
            let refusal = ProviderRefusal(error)
            provider.intake.finish(&record, messageID: requestID, answer: refusal.intakeAnswer, started: started)
            return refusal.response(headers: headers)
        }
        provider.intake.finish(&record, messageID: requestID, answer: .accepted(status: Int(response.status.code)), started: started)
        return response
    }

    /// Headers that may appear once only.
    private static let singleHeaders = [
        "apns-request-id", "apns-channel-id", "apns-push-type", "apns-priority", "apns-expiration", "apns-id", "authorization",
    ]

    private func answer(_ route: Route, _ incoming: Incoming, headers: HTTPFields, record: inout SenderRequestRecord) async throws -> Response {
        let method = incoming.exchange.method
        switch route {
        case .channels(let app):
            guard ["POST", "GET", "DELETE"].contains(method) else { throw APNsReason.methodNotAllowed }
            try await authenticate(incoming, app: app, environment: record.environment)
            record.storedApp = app
            if method == "POST" {
                return try await createChannel(app: app, body: incoming.exchange.body, environment: record.environment, headers: headers)
            }
            let channel = try await namedChannel(incoming.request, app: app, environment: record.environment)
            if method == "GET" { return .json(channel.apiJSON, headers: headers) }
            _ = try await provider.store.deleteChannel(id: channel.id)
            return Response(status: .noContent, headers: headers)
        case .allChannels(let app):
            guard method == "GET" else { throw APNsReason.methodNotAllowed }
            try await authenticate(incoming, app: app, environment: record.environment)
            record.storedApp = app
            let ids = try await provider.store.channels(app: app, environment: record.environment)
            return .json(.object(JSONObject([("channels", .array(ids.map(JSONValue.string)))])), headers: headers)
        case .broadcast(let app):
            guard method == "POST" else { throw APNsReason.methodNotAllowed }
            try await authenticate(incoming, app: app, environment: record.environment)
            return try await broadcast(app: app, incoming, headers: headers, record: &record)
        }
    }

    // MARK: Channels

    private func createChannel(app: String, body: SenderRequestBody, environment: APNsEnvironment, headers: HTTPFields) async throws -> Response {
        let body = try await body.collect(limit: Self.maximumChannelRequestSize)
        let policy: BroadcastChannel.StoragePolicy
        do {
            let reader = JSONReader(try JSONParser.parse(body.readableBytesView))
            _ = try reader.object()
            guard let pushType = try reader.optionalMember("push-type") else { throw APNsReason.missingPushType }
            guard try pushType.string() == BroadcastChannel.pushType else {
                throw ProviderRefusal(reason: .invalidPushType, description: "push-type: a channel carries \(BroadcastChannel.pushType) only")
            }
            let policyMember = try reader.member("message-storage-policy")
            guard let read = BroadcastChannel.StoragePolicy(rawValue: try policyMember.integer()) else {
                throw policyMember.failure("expected 0 (no message stored) or 1 (most recent message stored)")
            }
            policy = read
        } catch let error as JSONParseError {
            throw ProviderRefusal(reason: .badPayload, description: "the body is not JSON: \(error)")
        } catch let error as JSONReadError {
            throw ProviderRefusal(reason: .badPayload, description: "\(error)")
        }
        let channel = BroadcastChannel(
            id: BroadcastChannel.newID(), app: app, environment: environment, storagePolicy: policy, createdAt: provider.clock())
        do {
            try await provider.store.createChannel(channel, maximumPerApp: maximumChannelsPerApp)
        } catch let error as StoreError where error.code == .full {
            throw ProviderRefusal(reason: .cannotCreateChannelConfig, description: error.message)
        }
        var answered = headers
        answered[Self.channelIDField] = channel.id
        return Response(status: .created, headers: answered)
    }

    /// The channel `apns-channel-id` names, which must be the app's in this environment.
    private func namedChannel(_ request: ProviderRequest, app: String, environment: APNsEnvironment) async throws -> BroadcastChannel {
        guard let id = request.first("apns-channel-id") else { throw APNsReason.missingChannelId }
        guard BroadcastChannel.isWellFormedID(id) else {
            throw ProviderRefusal(reason: .badChannelId, description: "apns-channel-id must be a channel identifier in base64, as the channel API made it")
        }
        guard let channel = try await provider.store.channel(id: id), channel.app == app, channel.environment == environment else {
            throw ProviderRefusal(
                reason: .channelNotRegistered,
                description: "no channel \(id) of \(app) in \(environment.rawValue) (\(environment.channelHost)); channels are per app and environment")
        }
        return channel
    }

    // MARK: Broadcasts

    private func broadcast(app: String, _ incoming: Incoming, headers: HTTPFields, record: inout SenderRequestRecord) async throws -> Response {
        let providerRequest = incoming.request
        guard providerRequest.first("apns-channel-id") != nil else { throw APNsReason.missingChannelId }
        guard let pushType = providerRequest.first("apns-push-type") else { throw APNsReason.missingPushType }
        guard pushType == PushType.liveactivity.rawValue else {
            throw ProviderRefusal(reason: .invalidPushType, description: "a broadcast carries Live Activity updates: apns-push-type: liveactivity")
        }
        var priority = PushType.liveactivity.defaultPriority
        if let text = providerRequest.first("apns-priority") {
            guard let value = Int(text), PushType.liveactivity.allows(priority: value) else { throw APNsReason.badPriority }
            priority = value
        }
        var expiration: Int64?
        if let text = providerRequest.first("apns-expiration") {
            guard let value = Int64(text), value >= 0 else { throw APNsReason.badExpirationDate }
            expiration = value
        }
        let channel = try await namedChannel(providerRequest, app: app, environment: record.environment)
        if channel.storagePolicy == .noMessageStored, let expiration, expiration != 0 {
            throw ProviderRefusal(
                reason: .badExpirationDate,
                description: "channel \(channel.id) stores no message, so a broadcast on it cannot wait: send apns-expiration 0 or none")
        }
        let body = try await incoming.exchange.body.collect(limit: Self.maximumBroadcastSize)
        record.payload = Array(body.readableBytesView)
        guard body.readableBytes > 0 else { throw APNsReason.payloadEmpty }
        let payload: JSONValue
        do {
            payload = try JSONParser.parse(body.readableBytesView)
        } catch {
            throw ProviderRefusal(reason: .badPayload, description: "the payload is not JSON: \(error)")
        }
        record.storedApp = app
        let now = provider.clock()
        let apnsID = ProviderRequestCheck.apnsID(of: providerRequest, now: now)
        // Stored first, then fanned out: an activity that subscribes meanwhile either is found by the fan-out
        // or finds the stored message when it catches up (LiveActivitySubscription), never neither.
        if channel.storagePolicy == .mostRecentMessageStored {
            let expiresAt = expiration.flatMap { $0 == 0 ? nil : Date(timeIntervalSince1970: TimeInterval($0)) }
            let stored = StoredBroadcast(payload: payload, apnsID: apnsID, priority: priority, sentAt: now, expiresAt: expiresAt)
            guard try await provider.store.storeBroadcast(stored, channel: channel.id) else {
                throw ProviderRefusal(reason: .channelNotRegistered, description: "channel \(channel.id) was deleted meanwhile")
            }
        }
        let broadcast = ChannelBroadcast(channel: channel.id, app: app, apnsID: apnsID, priority: priority, payload: payload, now: now)
        let reached = try await broadcast.deliver(
            environment: record.environment, store: provider.store, centers: provider.centers)
        record.eventAction = "broadcast on channel \(channel.id) to the activities of \(reached) device\(reached == 1 ? "" : "s")"
        var answered = headers
        answered[.apnsID] = apnsID
        incoming.exchange.tellSenderAccepted()
        if record.environment == .development {
            let uniqueID = UUID.randomLowercasedString()
            record.uniqueID = uniqueID
            answered.appendUnindexed(ProviderEndpoint.uniqueIDField, uniqueID)
        }
        return Response(status: .ok, headers: answered)
    }

    // MARK: Parts

    /// A connection's certificate authenticates its requests, as for pushes; else the request's provider token.
    private func authenticate(_ incoming: Incoming, app: String, environment: APNsEnvironment) async throws {
        if try incoming.certificate.authenticates(app: app, in: environment, now: provider.clock()) { return }
        try await provider.authenticate(
            try ProviderRequestCheck.providerToken(of: incoming.request), bundleIdentifier: app, environment: environment, exchange: incoming.exchange)
    }

    private static func route(_ path: String) -> Route? {
        let parts = path.split(separator: "?", maxSplits: 1).first?.split(separator: "/", omittingEmptySubsequences: false) ?? []
        // "", "1", "apps", app, "channels"; "", "4", "broadcasts", "apps", app
        if parts.count == 5, parts[1] == "1", parts[2] == "apps", ProviderRequestCheck.isValidTopic(String(parts[3])) {
            switch parts[4] {
            case "channels": return .channels(app: String(parts[3]))
            case "all-channels": return .allChannels(app: String(parts[3]))
            default: return nil
            }
        }
        if parts.count == 5, parts[1] == "4", parts[2] == "broadcasts", parts[3] == "apps", ProviderRequestCheck.isValidTopic(String(parts[4])) {
            return .broadcast(app: String(parts[4]))
        }
        return nil
    }
}
