import Foundation
import HTTPTypes
import HuddleAPNs
import HuddleCore
import HuddleWebPush
import Hummingbird
import Logging
import Metrics
import NIOCore

/// The Web Push service (RFC 8030) at every subscription's endpoint, `/web-push/{service}/…` (docs/web-push.md): it
/// checks a push as the service the subscription imitates does (Apple's, Mozilla's, Google's), answers in that service's
/// words, then, being the browser too, decrypts it (RFC 8291) and shows what the device would.
///
/// A middleware before ``SiteGuard``, as the APNs and FCM endpoints are: a sender names whatever host the endpoint has.
struct WebPushEndpoint: RouterMiddleware {
    typealias Context = HuddleRequestContext

    let delivery: WebPushDelivery
    let store: any NotificationStore
    /// Tokens verified before (a sender reuses one for hours).
    let verifiedTokens = VerifiedTokens()
    /// Where each endpoint ID seen belongs (device, web app).
    let subscriptions = TokenPlaces()
    let intake: SenderIntake
    let faults: SenderFaults
    /// Whether the port serves TLS: the scheme of the endpoints' origin, which VAPID's `aud` must name.
    let tls: Bool
    let clock: @Sendable () -> Date

    /// The request headers the inspector shows, in the order sent (never `Authorization`: its claims are shown instead).
    static let recordedHeaders: Set<String> = ["ttl", "urgency", "topic", "content-encoding", "encryption", "crypto-key"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard WebPushService.isServicePath(Substring(request.uri.path)) else { return try await next(request, context) }
        let answer = await push(
            method: request.method.rawValue, path: request.uri.path, headers: request.headers, authority: request.head.authority,
            body: .request(request), client: ProviderExchange.client(of: context.connectionChannel), isHTTP2: context.isHTTP2)
        if answer.acceptsSender { SenderAccepted.tell(context) }
        return answer.routerResponse
    }

    /// A request to an endpoint, answered as its service answers it.
    func push(
        method: String, path: String, headers: HTTPFields, authority: String?, body: SenderRequestBody, client: String?, isHTTP2: Bool
    ) async -> SenderAnswer {
        let started = ContinuousClock.now
        let recorded = headers.filter { Self.recordedHeaders.contains($0.name.canonicalName) }.map { (name: $0.name.canonicalName, value: $0.value) }
        var record = intake.begin(client: client, isHTTP2: isHTTP2, method: method, path: path, headers: recorded)
        guard let (service, subscriptionID) = WebPushService.endpoint(ofPath: Substring(path)) else {
            // No service's path: answered as a front end with no such route does.
            intake.finish(&record, messageID: "", answer: .refused(status: 404, reason: "NotFound", description: nil), started: started)
            return SenderAnswer(status: .notFound, headers: [:], body: nil)
        }
        let origin = Self.origin(tls: tls, authority: authority)
        let messageID = Self.newMessageID(service, now: clock())
        var details = JSONObject([("service", .string(service.rawValue))])
        do {
            guard method == "POST" else { throw WebPushRefusal.methodNotAllowed }
            let push = try await check(
                service: service, subscriptionID: String(subscriptionID), headers: headers, origin: origin, body: body, record: &record,
                details: &details)
            if !push.recipient.subscription.online, case .kept(let note) = try await delivery.hold(push, messageID: messageID) {
                details["pushService"] = .string(note)
            } else {
                record.note(try await delivery.deliver(push, messageID: messageID, details: &details))
            }
            record.senderDetails = SenderDetails("webPush", .object(details))
            intake.finish(&record, messageID: messageID, answer: .accepted(status: 201), started: started)
            var answer = SenderAnswer(status: .created, headers: Self.acceptedHeaders(service, origin: origin, messageID: messageID, ttl: push.headers.ttl))
            answer.acceptsSender = true
            return answer
        } catch {
            let refusal = Self.refusal(for: error)
            if refusal == .internalError || refusal == .unavailable {
                // Not the sender's fault: what failed is said here, the sender gets the service's words only.
                Self.logger.error("web push failed", metadata: ["message": "\(messageID)", "error": "\(error)"])
            }
            let words = WebPushAnswer(refusal, service: service)
            record.senderDetails = SenderDetails("webPush", .object(details))
            intake.finish(
                &record, messageID: messageID,
                answer: .refused(status: words.status, reason: WebPushAnswer.reason(refusal, service: service), description: nil), started: started)
            var fields = HTTPFields()
            for (name, value) in words.headers.sorted(by: { $0.key < $1.key }) {
                if let name = HTTPField.Name(name) { fields[name] = value }
            }
            return SenderAnswer(status: HTTPResponse.Status(code: words.status), headers: fields, body: ByteBuffer(string: words.body))
        }
    }

    /// A push that passed every check of its service: its subscription, its headers, its body.
    struct CheckedPush {
        var recipient: WebPushRecipient
        var service: WebPushService
        var headers: PushMessageHeaders
        var body: ByteBuffer
    }

    /// The checks in Mozilla's order (the one order a service documents in code): the endpoint, VAPID and its key, the
    /// subscription's state, the fault asked for, the body's size, then the headers.
    private func check(
        service: WebPushService, subscriptionID: String, headers: HTTPFields, origin: String, body: SenderRequestBody,
        record: inout SenderRequestRecord, details: inout JSONObject
    ) async throws -> CheckedPush {
        guard subscriptionID.utf8.count <= 64, let recipient = try await recipient(of: subscriptionID),
            recipient.subscription.service == service.rawValue
        else { throw WebPushRefusal.unknownSubscription }
        record.deviceToken = recipient.device.token
        let credentials = try VAPIDCredentials(
            authorization: headers[.authorization], cryptoKey: headers[Self.cryptoKey], takesLegacyForm: service.takesLegacyForms)
        let claims = try verifiedTokens.claims(of: credentials)
        details["vapid"] = claims.json
        record.tokenIssuer = claims.subject ?? claims.audience
        try claims.check(service: service, audience: origin, now: clock())
        guard Base64URL.encode(credentials.publicKey) == recipient.subscription.applicationServerKey else { throw WebPushRefusal.vapid(.keyMismatch) }
        guard recipient.subscription.isActive else { throw WebPushRefusal.subscriptionGone }
        try await applyFault(device: recipient.device.token, app: recipient.app, record: &record)
        let bytes: ByteBuffer
        do {
            bytes = try await body.collect(limit: WebPushService.maximumBodySize)
        } catch is SenderRequestBody.TooLarge {
            throw WebPushRefusal.payloadTooLarge(WebPushService.maximumBodySize)
        }
        let pushHeaders = try PushMessageHeaders(service: service, bodyLength: bytes.readableBytes) { name in
            HTTPField.Name(name).flatMap { headers[$0] }
        }
        details["ttl"] = .integer(Int64(pushHeaders.ttl))
        details["urgency"] = .string((pushHeaders.urgency ?? .normal).rawValue)
        if let topic = pushHeaders.topic { details["topic"] = .string(topic) }
        record.storedApp = recipient.app
        return CheckedPush(recipient: recipient, service: service, headers: pushHeaders, body: bytes)
    }

    /// The web app an endpoint ID names, with its subscription as of the last change its device's session applied:
    /// from the IDs seen before and the session in memory (an ID never moves to another app, and the session follows
    /// the app's changes, other servers' included), else from the store.
    private func recipient(of subscriptionID: String) async throws -> WebPushRecipient? {
        if let known = try await subscriptions.remembered(subscriptionID, in: delivery.centers, { session, app in
            session.webPushSubscription(of: app).flatMap { $0.id == subscriptionID ? $0 : nil }
        }) {
            return WebPushRecipient(device: known.session.device, app: known.app, subscription: known.value)
        }
        guard let found = try await store.webPushRecipient(subscriptionID: subscriptionID) else { return nil }
        subscriptions.remember(subscriptionID, device: found.device.token, app: found.app)
        return found
    }

    private func applyFault(device: String, app: String, record: inout SenderRequestRecord) async throws {
        guard !faults.isEmpty,
            let effect = faults.take(device: device, topic: app, pushType: .alert, rateLimited: .webPush(429), now: clock())
        else { return }
        record.fault = effect.summary
        if let delay = effect.delayMilliseconds { try await Task.sleep(for: .milliseconds(delay)) }
        if case .webPush(let status)? = effect.answer { throw Self.faultRefusal(status) }
    }

    /// What a fault's status is, in the refusals each service words.
    static func faultRefusal(_ status: Int) -> WebPushRefusal {
        switch status {
        case 410: .subscriptionGone
        case 429: .tooManyRequests(retryAfter: 60)
        case 503: .unavailable
        default: .internalError
        }
    }

    private static func refusal(for error: any Error) -> WebPushRefusal {
        switch error {
        case let refusal as WebPushRefusal: refusal
        case let fault as VAPIDFault: .vapid(fault)
        case let error as StoreError where error.code == .unavailable: .unavailable
        case DeliveryRefusal.deviceGone, DeliveryRefusal.unknownApp: .subscriptionGone
        default: .internalError
        }
    }

    /// The origin a request was sent to, as VAPID's `aud` names it: the port's scheme and the request's authority.
    static func origin(tls: Bool, authority: String?) -> String {
        WebPushSubscription.canonicalOrigin((tls ? "https://" : "http://") + (authority ?? ""))
    }

    /// A message's ID as its service makes them: Apple's `apns-id` (a UUID), Mozilla's base64url, FCM's `0:…%…`.
    static func newMessageID(_ service: WebPushService, now: Date) -> String {
        var generator = SystemRandomNumberGenerator()
        switch service {
        case .apple:
            return UUID().uuidString
        case .mozilla:
            return Base64URL.encode(Data((0..<24).map { _ in generator.next() as UInt8 }))
        case .fcm:
            let hex = String(generator.next() as UInt64, radix: 16)
            return "0:\(Int64(now.timeIntervalSince1970 * 1000))%\(String(repeating: "0", count: 16 - hex.count))\(hex)"
        }
    }

    /// A 201's headers: `Location` (RFC 8030 §5), the `TTL` kept (Mozilla), the `apns-id` (Apple).
    static func acceptedHeaders(_ service: WebPushService, origin: String, messageID: String, ttl: Int) -> HTTPFields {
        var headers = HTTPFields()
        let escaped = messageID.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "%"))) ?? messageID
        // A stranger's Host that is no host and port is not echoed: the path alone is a Location too (RFC 9110 §10.2.2).
        let base = WebPushSubscription.appTopic(origin: origin) == nil ? "" : origin
        headers[.location] = "\(base)/web-push/\(service.rawValue)/m/\(escaped)"
        switch service {
        case .apple: headers[.apnsID] = messageID
        case .mozilla: headers[Self.ttl] = String(ttl)
        case .fcm: break
        }
        return headers
    }

    static let cryptoKey = HTTPField.Name("Crypto-Key")!
    static let ttl = HTTPField.Name("TTL")!

    private static let logger = Logger(label: "huddle.webpush")

    static let counterLabel = "huddle_web_push_requests_total"
    static let acceptedCounter = Counter(label: counterLabel, dimensions: [("status", "201"), ("reason", "")])
}
