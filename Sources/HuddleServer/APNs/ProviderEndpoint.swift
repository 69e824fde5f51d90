import Foundation
import HTTPTypes
import HuddleAPNs
import HuddleCore
import Hummingbird
import Logging
import Metrics
import NIOCore

/// `POST /3/device/<token>`: the APNs provider API, answered as Apple answers it (apns.md).
///
/// A middleware rather than a route, so that every method and every path under `/3/` gets an APNs
/// answer (`MethodNotAllowed`, `BadPath`) instead of the router's.
struct ProviderEndpoint: RouterMiddleware {
    typealias Context = HuddleRequestContext

    /// Where the benchmarks' check-only copy of the endpoint is (`/bench/check/3/device/…`, with
    /// ``ServerConfiguration/benchmarkRoutes``): every check, the token's verification and the payload's
    /// decoding, but nothing stored. Pushes into a store are measured against it.
    static let checkOnlyPrefix = "/bench/check"

    let centers: DeviceCenters
    let store: any NotificationStore
    let keys: SigningKeyCache
    let verifiedSignatures = VerifiedSignatures()
    let requiresProviderToken: Bool
    /// The host names a request may name when provider tokens are not checked (`--development`): the site's own and
    /// Apple's. A browser can send such a request too, and one whose page's name an attacker points at this server
    /// (DNS rebinding) must send nothing.
    let uncheckedRequestHosts: AllowedHosts
    let servesCheckOnlyRoute: Bool
    /// Every request's record, timing, history and count.
    let intake: SenderIntake
    /// Failures an admin asked for; none unless asked.
    let faults: SenderFaults
    /// Whether the server trusts an authority for client certificates (`--client-ca`): then a connection's certificate
    /// is read at its first request.
    let readsClientCertificates: Bool
    let clock: @Sendable () -> Date

    /// What the endpoint answers at a path, if anything (the rest goes to the router).
    enum Route: Sendable, Equatable {
        /// The provider API (`/3/…`); `stores` is false for the benchmarks' check-only copy.
        case provider(path: String, stores: Bool)
    }

    /// Every request's path asks: compared byte by byte.
    func route(_ path: String) -> Route? {
        var path = path[...]
        var stores = true
        if servesCheckOnlyRoute, path.utf8.starts(with: Self.checkOnlyProviderPrefix.utf8) {
            path = path[path.utf8.index(path.startIndex, offsetBy: Self.checkOnlyPrefix.utf8.count)...]
            stores = false
        }
        guard path.utf8.starts(with: "/3/".utf8) || path.utf8.elementsEqual("/3".utf8) else { return nil }
        return .provider(path: String(path), stores: stores)
    }

    private static let checkOnlyProviderPrefix = checkOnlyPrefix + "/3/"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard case .provider(let path, let stores) = route(request.uri.path) else {
            return try await next(request, context)
        }
        let exchange = ProviderExchange(request, path: path, context: context, clientConnection: await ClientConnection.of(context.connectionChannel))
        let answer = await answer(exchange, stores: stores)
        if answer.acceptsSender { exchange.tellSenderAccepted() }
        var response = answer.routerResponse
        // An HTTP/1.1 connection told to go away closes once this answer is written, and says so.
        if answer.goesAway, !context.isHTTP2 {
            response.headers[.connection] = "close"
            context.connectionChannel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
        return response
    }

    /// Answers a request to the provider API, whatever carried it: Hummingbird's router (``handle(_:context:next:)``)
    /// or an HTTP/2 connection's own handler (``SenderStreams``). Every check, the inspector's record, the
    /// faults' effects on the stream or connection, and the store's commit happen here; the transport writes
    /// the answer (unless ``SenderAnswer/answered`` is false: a fault cut the request off).
    func answer(_ exchange: ProviderExchange, stores: Bool) async -> SenderAnswer {
        let started = ContinuousClock.now
        let providerRequest = ProviderRequest(method: exchange.method, path: exchange.path, headers: exchange.headers)
        let certificate = await certificate(of: exchange)
        let (apnsID, checked) = ProviderRequestCheck.check(certificate.defaultingTopic(of: providerRequest), now: clock())
        var record = startRecord(providerRequest, exchange: exchange)
        record.environment = Self.environment(of: exchange.authority)
        certificate.note(in: &record)
        let outcome: Result<Void, ProviderRefusal>
        do {
            try await deliver(try checked.get(), certificate: certificate, exchange: exchange, stores: stores, record: &record)
            outcome = .success(())
        } catch let cut as FaultCutOff {
            // Nothing is answered. The inspector shows the request before its stream or connection goes, so a
            // client that looks at once finds it.
            intake.finish(&record, messageID: apnsID, answer: .cutOff, started: started)
            cut.stream.cutOff()
            return SenderAnswer(status: .ok, headers: [:], answered: false)
        } catch {
            if !ProviderRefusal.isAnswer(error) { exchange.logger.error("push failed", metadata: ["apns-id": "\(apnsID)", "error": "\(error)"]) }
            outcome = .failure(ProviderRefusal(error))
        }
        // Apple answers an accepted push with an apns-unique-id in its development environment; the request
        // inspector finds the request by it.
        if case .success = outcome, record.environment == .development { record.uniqueID = UUID.randomLowercasedString() }
        intake.finish(&record, messageID: apnsID, answer: outcome.answer, started: started)
        var answer = respond(outcome, apnsID: apnsID)
        if let uniqueID = record.uniqueID { answer.headers.appendUnindexed(Self.uniqueIDField, uniqueID) }
        if case .failure(let refusal) = outcome { answer.goesAway = refusal.goesAway }
        return answer
    }

    private func deliver(
        _ push: ProviderPush, certificate: PresentedCertificate, exchange: ProviderExchange, stores: Bool,
        record: inout SenderRequestRecord
    ) async throws {
        // Authentication first, as APNs does: a client without a valid token learns nothing about devices. A
        // connection's certificate authenticates all its requests; any token they carry is not looked at.
        if try !certificate.authenticates(push, in: record.environment, now: clock()) {
            try await authenticate(push.providerToken, bundleIdentifier: push.bundleIdentifier, environment: record.environment, exchange: exchange)
        }
        // A fault for a device catches the pushes to its Live Activities' tokens too.
        if !faults.isEmpty,
            let effect = faults.take(
                device: LiveActivityTokens.device(of: push.deviceToken) ?? push.deviceToken, topic: push.bundleIdentifier,
                pushType: push.pushType, rateLimited: .apns(.tooManyRequests), now: clock())
        {
            record.fault = effect.summary
            try await apply(effect, exchange: exchange)
        }
        if push.pushType == .liveactivity {
            return try await deliverToLiveActivity(push, exchange: exchange, stores: stores, record: &record)
        }
        let (session, body) = try await sessionAndBody(of: push, device: push.deviceToken, exchange: exchange, record: &record)
        let payload: APNsPayload
        do {
            payload = try APNsPayload.decode(body.readableBytesView, maximumSize: push.pushType.maximumPayloadSize)
        } catch {
            switch error.code {
            case .empty: throw APNsReason.payloadEmpty
            case .tooLarge: throw APNsReason.payloadTooLarge
            case .malformedJSON, .invalidValue: throw ProviderRefusal(reason: .badPayload, description: error.description)
            }
        }
        guard stores else { return }
        record.storedApp = push.bundleIdentifier
        try await storing(on: push.deviceToken, session: session) {
            // The collapse identifier names the notification, so a later push with it replaces this one.
            let stored = StoredPush(
                app: push.bundleIdentifier, pushType: push.pushType.rawValue, messageID: push.apnsID, priority: push.priority, date: clock(),
                deviceAction: push.pushType.deviceAction(for: payload),
                request: NotificationRequest(identifier: push.collapseID ?? push.apnsID, content: payload.content),
                payload: { (try? JSONParser.parse(body.readableBytesView)) ?? .null })
            record.note(try await session.store(stored))
        }
    }

    /// Checks a request's provider token for an app in an environment (when the server asks for tokens), and
    /// admits it on the request's connection: what every request to the provider API passes first.
    func authenticate(_ providerToken: String?, bundleIdentifier: String, environment: APNsEnvironment, exchange: ProviderExchange) async throws {
        guard requiresProviderToken else {
            guard uncheckedRequestHosts.allows(exchange.authority) else {
                throw ProviderRefusal(
                    reason: .forbidden,
                    description: "without provider tokens (--development) this server answers its own host names and Apple's only, not \""
                        + String((exchange.authority ?? "").prefix(100)) + "\": start huddle serve with --public-host NAME to add a name")
            }
            return
        }
        let now = clock()
        let (token, key) = try await ProviderAuthentication.verify(
            providerToken, connection: exchange.clientConnection.tokenState, now: now, verifiedSignatures: verifiedSignatures, lookUpKey: { try await keys.key(id: $0) })
        do {
            try exchange.clientConnection.admit(token, key: key, bundleIdentifier: bundleIdentifier, now: now)
        } catch {
            guard error == .invalidProviderToken, !key.allows(bundleIdentifier) else { throw error }
            // APNs says no more; the reason a key is refused for an app is worth saying where a developer looks.
            throw ProviderRefusal(
                reason: .invalidProviderToken,
                description: "key \(key.keyID) covers \(key.topics.sorted().joined(separator: ", ")) only, not \(bundleIdentifier): "
                    + "register the key again with every topic it may push to (huddle keys add … --topic \(bundleIdentifier) …)")
        }
        guard key.environments.contains(environment) else {
            throw ProviderRefusal(
                reason: .badEnvironmentKeyInToken,
                description: "key \(key.keyID) may be used in \(key.environments.sorted().map(\.rawValue).joined(separator: " and ")) only; this request went to \(environment.rawValue) (\(environment.host))")
        }
    }

    /// A Live Activity push goes to a token of the device's ActivityKit (``LiveActivityTokens``): a
    /// push-to-start token or an activity's update token. Its payload is the activity's, which the device
    /// judges (an `aps` it cannot apply is dropped there, and the push answered 200, as APNs answers it).
    private func deliverToLiveActivity(
        _ push: ProviderPush, exchange: ProviderExchange, stores: Bool, record: inout SenderRequestRecord
    ) async throws {
        guard let device = LiveActivityTokens.device(of: push.deviceToken) else {
            guard try await centers.session(for: push.deviceToken) != nil else { throw try await refusalForUnknownDevice(push.deviceToken) }
            throw ProviderRefusal(
                reason: .deviceTokenNotForTopic,
                description: "a Live Activity push goes to a push-to-start token or an activity's update token "
                    + "(GET /v1/devices/{token}/activities lists them), not to the device's token")
        }
        let (session, body) = try await sessionAndBody(of: push, device: device, exchange: exchange, record: &record)
        let payload: JSONValue
        do {
            guard body.readableBytes > 0 else { throw APNsReason.payloadEmpty }
            payload = try JSONParser.parse(body.readableBytesView)
        } catch let error as JSONParseError {
            throw ProviderRefusal(reason: .badPayload, description: "the payload is not JSON: \(error)")
        }
        guard stores else { return }
        record.storedApp = push.bundleIdentifier
        let activityPush = LiveActivityPush(
            token: push.deviceToken, device: device, app: push.bundleIdentifier, apnsID: push.apnsID, priority: push.priority,
            payload: payload, now: clock(), configuration: DeviceActivities.Configuration())
        try await storing(on: device, session: session) {
            record.eventAction = try await session.updateActivities(app: push.bundleIdentifier, activityPush.update)?.action
            // An activity started on a broadcast channel gets the broadcast the channel keeps, as on the phone.
            if case .string(let channel)? = payload["aps"]?["input-push-channel"] {
                try await ChannelBroadcast.catchUp(
                    session, app: push.bundleIdentifier, channel: channel, environment: record.environment, store: store, now: clock())
            }
        }
    }

    /// The device's session, once it is known to have the push's app, and the push's body (at most its push
    /// type's payload, which the inspector keeps).
    private func sessionAndBody(
        of push: ProviderPush, device: String, exchange: ProviderExchange, record: inout SenderRequestRecord
    ) async throws -> (DeviceSession, ByteBuffer) {
        guard let session = try await centers.session(for: device) else {
            throw try await refusalForUnknownDevice(device)
        }
        // An Android phone has no APNs token: its apps get messages through FCM only.
        guard session.device.kind.takesAPNsPushes else {
            throw ProviderRefusal(
                reason: .badDeviceToken,
                description: "this device is an Android phone: its apps get messages through FCM (POST /v1/projects/{project}/messages:send to an app's fcmToken)")
        }
        // A device token belongs to one environment; the other does not know it (Apple: BadDeviceToken).
        guard session.device.environment == record.environment else {
            throw ProviderRefusal(
                reason: .badDeviceToken,
                description: "this device's token is a \(session.device.environment.rawValue) one (\(session.device.environment.host)); "
                    + "this request went to \(record.environment.rawValue) (\(record.environment.host))")
        }
        guard try await session.knowsApp(push.bundleIdentifier) else {
            throw APNsReason.deviceTokenNotForTopic
        }
        let body = try await exchange.body.collect(limit: push.pushType.maximumPayloadSize)
        record.payload = Array(body.readableBytesView)
        return (session, body)
    }

    /// Runs a write to a device's session, answering as APNs would when the device or its app went away
    /// meanwhile. A watched device's write runs on Swift's pool (``DeviceSession/onPoolWhenWatched(_:)``).
    private func storing(on device: String, session: DeviceSession, _ write: () async throws -> Void) async throws {
        do {
            try await session.onPoolWhenWatched(write)
        } catch DeliveryRefusal.deviceGone {
            // Another server sharing the store deleted the device after this one loaded it.
            centers.forget(device)
            throw try await refusalForUnknownDevice(device)
        } catch DeliveryRefusal.unknownApp {
            throw APNsReason.deviceTokenNotForTopic
        } catch DeliveryRefusal.unstorableIdentifier(let problem) {
            throw ProviderRefusal(reason: .badCollapseId, description: "the collapse identifier \(problem)")
        } catch DeliveryRefusal.tokenOfAnotherApp {
            throw ProviderRefusal(
                reason: .deviceTokenNotForTopic,
                description: "this Live Activity token belongs to another app of the device; a push to it names that app's topic")
        }
    }

    /// Does what a fault asks: waits, cuts the request off, or refuses it (and for `goaway`, tells the
    /// connection to go away). Returns only when the push goes on as if there were no fault.
    private func apply(_ effect: FaultEffect, exchange: ProviderExchange) async throws {
        if let delay = effect.delayMilliseconds { try await Task.sleep(for: .milliseconds(delay)) }
        switch effect.connection {
        case .resetStream:
            // An HTTP/2 stream's channel closed before its answer is a reset stream (RST_STREAM, CANCEL); an
            // HTTP/1.1 request's channel is its connection.
            throw FaultCutOff(stream: exchange.stream)
        case .close:
            throw FaultCutOff(stream: .channel(exchange.connectionChannel))
        case .goAway where exchange.isHTTP2:
            let reason = effect.apnsRefusal?.reason ?? .shutdown
            let connection = exchange.connectionChannel
            // APNs names its reason in the GOAWAY's debug data. It goes once the stream that asked has its
            // answer (many clients fail whatever is unanswered when a GOAWAY comes), as the one GOAWAY of a
            // graceful close that lets the connection's other open streams finish (HTTP2ConnectionManager).
            let debugData = connection.allocator.buffer(string: JSONValue.object(JSONObject([("reason", .string(reason.rawValue))])).jsonText())
            exchange.stream.whenClosed {
                connection.pipeline.fireUserInboundEventTriggered(GoAwayNow(debugData: debugData))
            }
        case .goAway, nil:
            break
        }
        if var refusal = effect.apnsRefusal {
            refusal.goesAway = effect.connection == .goAway
            throw refusal
        }
    }

    static let uniqueIDField = HTTPField.Name("apns-unique-id")!

    /// The counter of the provider API's answers, by status and reason.
    static let counterLabel = "huddle_provider_requests_total"
    /// Accepted pushes' count, made at the first (a `static let` is made when first read).
    static let acceptedCounter = Counter(label: counterLabel, dimensions: [("status", "200"), ("reason", "")])

    /// The environment a request goes to: production when it names Apple's production host, as a client set up
    /// for production does; development otherwise (Apple's sandbox host, or any other name a client is pointed
    /// at Huddle by), the environment of a build run from Xcode. docs/environments.md.
    static func environment(of authority: String?) -> APNsEnvironment {
        guard let authority else { return .development }
        let production = APNsEnvironment.production
        return names(authority, host: production.host) || names(authority, host: production.channelHost) ? .production : .development
    }

    /// Whether an authority is `host`, with or without a port. Every push asks: compared byte by byte (ASCII,
    /// without regard to case), nothing allocated.
    private static func names(_ authority: String, host: String) -> Bool {
        let expected = host.utf8
        let sent = authority.utf8
        guard sent.count >= expected.count, sent.prefix(expected.count).elementsEqual(expected, by: { ($0 | 0x20) == $1 }) else { return false }
        let rest = sent.dropFirst(expected.count)
        return rest.isEmpty || rest.first == UInt8(ascii: ":")
    }

    /// The inspector's record of a request as it arrives: its connection, path, `apns-` headers, and its
    /// provider token's key, team and age (the token itself is not kept).
    func startRecord(_ request: ProviderRequest, exchange: ProviderExchange) -> SenderRequestRecord {
        var record = intake.begin(
            client: exchange.client, isHTTP2: exchange.isHTTP2, method: request.method, path: request.path,
            headers: request.headers.filter { $0.name.utf8.starts(with: "apns-".utf8) })
        // The token as sent, also when the request is refused before it is checked.
        if let sent = ProviderRequestCheck.deviceToken(in: request) {
            record.deviceToken = String(sent.prefix(200)).lowercased()
        }
        // Most pushes present the token their connection already had admitted: it is read once per connection.
        if let text = try? ProviderRequestCheck.providerToken(of: request),
            let token = exchange.clientConnection.token.flatMap({ $0.text == text ? $0 : nil }) ?? (try? ProviderToken(parsing: text))
        {
            record.noteProviderToken(token)
        }
        return record
    }

    /// The client certificate of the request's connection; none unless the server trusts an authority for them.
    func certificate(of exchange: ProviderExchange) async -> PresentedCertificate {
        guard readsClientCertificates else { return .none }
        return await exchange.clientConnection.presentedCertificate(on: exchange.connectionChannel)
    }

    /// `Unregistered` (with when) for a deleted device, `BadDeviceToken` for one never registered.
    private func refusalForUnknownDevice(_ token: String) async throws -> ProviderRefusal {
        guard let date = try await store.unregistrationDate(token: token) else { return ProviderRefusal(reason: .badDeviceToken) }
        return ProviderRefusal(reason: .unregistered, timestamp: date)
    }


    private func respond(_ outcome: Result<Void, ProviderRefusal>, apnsID: String) -> SenderAnswer {
        var headers = HTTPFields()
        headers.appendUnindexed(.apnsID, apnsID)
        switch outcome {
        case .success:
            return SenderAnswer(status: .ok, headers: headers, acceptsSender: true)
        case .failure(let refusal):
            return refusal.answer(headers: headers)
        }
    }
}

extension ProviderRefusal {
    /// What a request that failed with `error` is answered: the refusal or reason it threw, a store's failure as
    /// APNs names it (`InternalServerError`, `ServiceUnavailable`), anything else `InternalServerError`.
    init(_ error: any Error) {
        switch error {
        case let refusal as ProviderRefusal: self = refusal
        case let reason as APNsReason: self.init(reason: reason)
        case let error as StoreError: self.init(reason: error.apnsReason)
        case is SenderRequestBody.TooLarge: self.init(reason: .payloadTooLarge)
        default: self.init(reason: .internalServerError)
        }
    }

    /// What the request's record and counter say it was answered.
    var intakeAnswer: SenderIntake.Answer {
        .refused(status: Int(reason.status.code), reason: reason.rawValue, description: description)
    }

    /// Whether `error` is an answer the request earned (a refusal or a reason) rather than a failure to log.
    static func isAnswer(_ error: any Error) -> Bool {
        error is ProviderRefusal || error is APNsReason || error is SenderRequestBody.TooLarge
    }

    /// The refusal as APNs answers it: its reason's status, and `{"reason": …}` (with `timestamp` for 410).
    func answer(headers: HTTPFields) -> SenderAnswer {
        var body = JSONObject([("reason", .string(reason.rawValue))])
        if let timestamp {
            body["timestamp"] = .integer(timestamp.milliseconds)
        }
        // Not an APNs key: clients ignore it, people reading logs are glad of it.
        if let description { body["description"] = .string(description) }
        return .json(.object(body), status: reason.status, headers: headers)
    }

    /// The same answer as the router writes it.
    func response(headers: HTTPFields) -> Response {
        answer(headers: headers).routerResponse
    }
}

/// A refused push: the APNs reason, and for some reasons more to say.
struct ProviderRefusal: Error {
    var reason: APNsReason
    /// For `Unregistered`: when the token stopped being valid.
    var timestamp: Date?
    /// For `BadPayload`: what is wrong with the payload, and where.
    var description: String?
    /// A fault's refusal that ends the connection after it.
    var goesAway = false
}

/// A request a fault cuts off, nothing answered: what to cut off (its stream, resetting it, or its connection).
struct FaultCutOff: Error {
    let stream: RequestStream
}

extension Result<Void, ProviderRefusal> {
    /// What a push's record and counter say it was answered.
    var answer: SenderIntake.Answer {
        switch self {
        case .success: .accepted(status: 200)
        case .failure(let refusal): refusal.intakeAnswer
        }
    }
}

extension FaultEffect {
    /// The APNs answer a fault gives instead of the push's own; `nil` for none, or another sender's.
    var apnsRefusal: ProviderRefusal? {
        guard case .apns(let reason, let timestamp)? = answer else { return nil }
        return ProviderRefusal(reason: reason, timestamp: timestamp)
    }
}
