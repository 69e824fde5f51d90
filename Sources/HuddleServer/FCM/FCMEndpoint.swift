import Foundation
import HTTPTypes
import HuddleAPNs
import HuddleCore
import HuddleFCM
import Hummingbird
import Logging
import Metrics
import NIOCore
import Synchronization

/// Firebase Cloud Messaging's HTTP v1 API, on Google's paths, for Google's unchanged Admin SDKs (docs/fcm.md):
///
/// - `POST /token`: the OAuth 2.0 JWT bearer grant a service account's `token_uri` points at;
/// - `POST /v1/projects/{project}/messages:send`;
/// - `POST /v1/projects/{project}/registrations/{token}/topicSubscriptions?topic_name=` and
///   `DELETE …/topicSubscriptions/{topic}`: topic subscriptions as firebase-admin 7.7 makes them;
/// - `POST /iid/v1:batchAdd` and `:batchRemove`: the Instance ID API the other Admin SDKs still use.
///
/// A middleware before ``SiteGuard``, as the APNs endpoint is: SDKs name whatever host they were pointed at.
struct FCMEndpoint: RouterMiddleware {
    typealias Context = HuddleRequestContext

    let centers: DeviceCenters
    let store: any NotificationStore
    let authentication: FCMAuthentication
    /// The apps registration tokens and installation IDs name (shared with Expo's endpoint).
    let recipients: FirebaseRecipients
    /// Every send's record, timing, history and count.
    let intake: SenderIntake
    let faults: SenderFaults
    let clock: @Sendable () -> Date
    /// The most topics one registration token is subscribed to (FCM's limit).
    static let maximumTopicsPerToken = 2_000
    /// The most tokens one Instance ID batch names (FCM's limit).
    static let maximumBatchTokens = 1_000
    /// The most devices one topic or condition message is delivered to here; FCM has no such bound, a test double
    /// holding a request open for an unbounded fan-out would.
    static let maximumFanOut = 10_000

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path == "/token" {
            guard request.method == .post else { return Self.oauthAnswer(OAuthError("invalid_request", "The token endpoint takes POST."), status: .methodNotAllowed) }
            return await grant(request)
        }
        if path == "/iid/v1:batchAdd" || path == "/iid/v1:batchRemove" {
            return await answering { try await batch(request, adding: path.hasSuffix("batchAdd")) }
        }
        guard path.utf8.starts(with: "/v1/projects/".utf8) else { return try await next(request, context) }
        // Only a part with an escape is decoded: Foundation's decoding goes through NSString on Linux, on every send.
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst(3).map { part in
            part.utf8.contains(UInt8(ascii: "%")) ? part.removingPercentEncoding ?? String(part) : String(part)
        }
        guard let project = parts.first, FirebaseInstallation.isValidProjectID(project) else {
            return Self.answer(FCMError(httpStatus: 404, status: "NOT_FOUND", message: "Requested entity was not found."))
        }
        let rest = Array(parts.dropFirst())
        switch (request.method, rest.count, rest.first) {
        case (.post, 1, "messages:send"):
            return await send(request, context: context, project: project)
        case (.post, 3, "registrations") where rest[2] == "topicSubscriptions":
            return await answering { try await subscribe(request, project: project, token: rest[1]) }
        case (.delete, 4, "registrations") where rest[2] == "topicSubscriptions":
            return await answering { try await unsubscribe(request, project: project, token: rest[1], topic: rest[3]) }
        default:
            return Self.answer(FCMError(httpStatus: 404, status: "NOT_FOUND", message: "Requested entity was not found."))
        }
    }

    // MARK: The token endpoint

    /// `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<JWT>`, answered as Google answers it.
    private func grant(_ request: Request) async -> Response {
        do {
            guard FormBody.isForm(request) else {
                throw OAuthError("invalid_request", "Send the grant as application/x-www-form-urlencoded.")
            }
            let form = FormBody(String(buffer: try await request.collectBody(limit: ServiceAccountAssertion.maximumLength + 512)))
            guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" else {
                throw OAuthError("unsupported_grant_type", "Invalid grant_type: \(String((form["grant_type"] ?? "").prefix(100)))")
            }
            guard let text = form["assertion"] else { throw OAuthError("invalid_request", "Missing required parameter: assertion") }
            let assertion = try ServiceAccountAssertion(parsing: text)
            guard let account = try await authentication.accounts.record(id: assertion.keyID) else {
                throw OAuthError("invalid_grant", "Invalid grant: account not found")
            }
            let now = clock()
            try assertion.verify(for: account, now: now)
            return .json([
                "access_token": .string(FCMAccessToken.token(for: assertion)),
                "expires_in": .integer(max(0, Int64(assertion.expiresAt.timeIntervalSince(now)))), "token_type": "Bearer",
            ])
        } catch let error as OAuthError {
            return Self.oauthAnswer(error, status: .badRequest)
        } catch {
            return Self.oauthAnswer(OAuthError("invalid_request", "\(error)"), status: .badRequest)
        }
    }

    private static func oauthAnswer(_ error: OAuthError, status: HTTPResponse.Status) -> Response {
        .json(error.json, status: status)
    }

    // MARK: Sending

    private func send(_ request: Request, context: Context, project: String) async -> Response {
        let answer = await send(
            project: project, method: request.method.rawValue, path: request.uri.path, headers: request.headers, authority: request.head.authority,
            body: .request(request), client: ProviderExchange.client(of: context.connectionChannel), isHTTP2: context.isHTTP2,
            logger: context.logger)
        if answer.acceptsSender { SenderAccepted.tell(context) }
        return answer.routerResponse
    }

    /// A `messages:send` to `project`, as FCM answers it, whatever carried it: the router (``handle(_:context:next:)``)
    /// or the port's transport, which reads it on its connection's event loop as it reads a push.
    func send(
        project: String, method: String, path: String, headers: HTTPFields, authority: String?, body: SenderRequestBody, client: String?,
        isHTTP2: Bool, logger: Logger
    ) async -> SenderAnswer {
        let started = ContinuousClock.now
        let messageID = FCMMessage.newMessageID(now: clock())
        var record = intake.begin(client: client, isHTTP2: isHTTP2, method: method, path: path)
        let outcome: Result<Void, FCMError>
        do {
            try SiteGuard.checkSameOrigin(headers: headers, authority: authority)
            let account = try await authentication.account(headers: headers, authority: authority, project: project, now: clock())
            record.tokenKeyID = account?.keyID
            record.tokenIssuer = project
            let body = try await collect(body)
            if body.readableBytes <= Self.longestBodyKept { record.payload = Array(body.readableBytesView) }
            let json: JSONValue
            do {
                json = try JSONParser.parse(body.readableBytesView)
            } catch {
                throw FCMError.malformed(field: "", "Invalid JSON payload received. \(error)")
            }
            let send = try FCMSendRequest(json: json)
            try await deliver(send, project: project, messageID: messageID, record: &record)
            outcome = .success(())
        } catch let error as FCMError {
            outcome = .failure(error)
        } catch let error as StoreError where error.code == .unavailable {
            outcome = .failure(FCMError(.unavailable, "The service is currently unavailable."))
        } catch let error as APIError {
            // The site's origin rule: a page of another site may not send.
            outcome = .failure(FCMError(httpStatus: 403, status: "PERMISSION_DENIED", message: error.message))
        } catch {
            logger.error("FCM send failed", metadata: ["message": "\(messageID)", "error": "\(error)"])
            outcome = .failure(FCMError(.internal, "Internal error encountered."))
        }
        switch outcome {
        case .success:
            intake.finish(&record, messageID: messageID, answer: .accepted(status: 200), started: started)
            var answer = SenderAnswer.json(["name": .string("projects/\(project)/messages/\(messageID)")])
            answer.acceptsSender = true
            return answer
        case .failure(let error):
            intake.finish(
                &record, messageID: messageID, answer: .refused(status: error.httpStatus, reason: error.code?.rawValue ?? error.status, description: error.message),
                started: started)
            return Self.answerValue(error)
        }
    }

    /// The project of a plain `POST /v1/projects/{project}/messages:send`, which the port's transport answers itself
    /// (``send(project:method:path:headers:authority:body:client:isHTTP2:logger:)``); `nil` for any other request,
    /// which the router brings to ``handle(_:context:next:)`` (an escaped or odd path included).
    static func sendProject(method: HTTPRequest.Method, path: String) -> String? {
        guard method == .post, path.utf8.starts(with: "/v1/projects/".utf8), path.utf8.reversed().starts(with: "/messages:send".utf8.reversed())
        else { return nil }
        let start = path.utf8.index(path.startIndex, offsetBy: 13)
        let end = path.utf8.index(path.endIndex, offsetBy: -14)
        guard start < end else { return nil }
        let project = path[start..<end]
        guard !project.utf8.contains(UInt8(ascii: "/")), !project.utf8.contains(UInt8(ascii: "%")), FirebaseInstallation.isValidProjectID(project)
        else { return nil }
        return String(project)
    }

    /// The counter of FCM's answers, by status and error.
    static let counterLabel = "huddle_fcm_requests_total"
    /// Accepted sends' count, made at the first (a `static let` is made when first read).
    static let acceptedCounter = Counter(label: counterLabel, dimensions: [("status", "200"), ("error", "")])

    /// The longest body the inspector keeps (most messages are well under it; the limit of a body is 64 KB).
    static let longestBodyKept = 16 * 1024

    private func collect(_ body: SenderRequestBody) async throws -> ByteBuffer {
        do {
            return try await body.collect(limit: FCMSendRequest.maximumBodySize)
        } catch is SenderRequestBody.TooLarge {
            throw FCMError.invalid(field: "message", "Request payload size exceeds the limit: \(FCMSendRequest.maximumBodySize) bytes.")
        }
    }

    private func deliver(_ send: FCMSendRequest, project: String, messageID: String, record: inout SenderRequestRecord) async throws {
        let message = send.message
        switch message.target {
        case .token, .installation:
            guard let recipient = try await recipient(of: message.target) else { throw FCMError(.unregistered, "Requested entity was not found.") }
            record.deviceToken = recipient.device.token
            guard recipient.installation.accepts(project: project) else { throw FCMError(.senderIDMismatch, "SenderId mismatch") }
            if recipient.device.kind.fcmArrival == .androidNotification, let package = message.android?.restrictedPackageName,
                package != recipient.app
            {
                throw FCMError.invalid(
                    field: "message.android.restricted_package_name",
                    "Invalid package name: the token belongs to \(recipient.app), not \(package.prefix(255))")
            }
            try await applyFault(device: recipient.device.token, app: recipient.app, record: &record)
            guard !send.validateOnly else { return }
            record.storedApp = recipient.app
            record.note(try await deliver(message, to: recipient, messageID: messageID))
        case .topic(let topic):
            try await applyFault(device: "", app: "", record: &record)
            guard !send.validateOnly else { return }
            let recipients = try await store.subscribers(project: project, toAnyOf: [topic])
            await fanOut(message, to: recipients.map(\.registrationToken), project: project, messageID: messageID)
        case .condition(let condition):
            try await applyFault(device: "", app: "", record: &record)
            guard !send.validateOnly else { return }
            let recipients = try await store.subscribers(project: project, toAnyOf: condition.topics)
            let matching = recipients.filter { condition.matches(subscribedTo: $0.topics) }.map(\.registrationToken)
            await fanOut(message, to: matching, project: project, messageID: messageID)
        }
    }

    /// Delivers a topic's or condition's message to each subscribed app, as FCM does after answering: one that fails
    /// (its app went meanwhile) fails alone, and one registered with another project since it subscribed gets nothing.
    /// Runs on Swift's pool, whatever thread the send ran on: the port's transport runs sends on their connection's
    /// event loop, where up to ``maximumFanOut`` deliveries would hold every other connection of the loop.
    private func fanOut(_ message: FCMMessage, to tokens: [String], project: String, messageID: String) async {
        await withTaskExecutorPreference(globalConcurrentExecutor) {
            await deliverEach(message, to: tokens, project: project, messageID: messageID)
        }
    }

    private func deliverEach(_ message: FCMMessage, to tokens: [String], project: String, messageID: String) async {
        for token in tokens.prefix(Self.maximumFanOut) {
            do {
                guard let recipient = try await recipients.recipient(registrationToken: token), recipient.installation.accepts(project: project)
                else { continue }
                _ = try await deliver(message, to: recipient, messageID: messageID)
            } catch {
                Self.logger.warning("a topic message did not reach \(token.prefix(24))…: \(error)")
            }
        }
    }

    private static let logger = Logger(label: "huddle.fcm")

    private func applyFault(device: String, app: String, record: inout SenderRequestRecord) async throws {
        guard !faults.isEmpty,
            let effect = faults.take(device: device, topic: app, pushType: .alert, rateLimited: .fcm(.quotaExceeded), now: clock())
        else { return }
        record.fault = effect.summary
        if let delay = effect.delayMilliseconds { try await Task.sleep(for: .milliseconds(delay)) }
        if case .fcm(let code)? = effect.answer { throw FCMError(code, Self.faultMessages[code] ?? "Internal error encountered.") }
    }

    /// What FCM says with each error code, as seen in its answers (docs/fcm-research.md section 2.1).
    static let faultMessages: [FCMError.Code: String] = [
        .invalidArgument: "Request contains an invalid argument.", .unregistered: "Requested entity was not found.",
        .senderIDMismatch: "SenderId mismatch", .quotaExceeded: "Quota exceeded for quota metric 'Messages sent' and limit 'Messages sent per minute'.",
        .unavailable: "The service is currently unavailable.", .internal: "Internal error encountered.",
        .thirdPartyAuthError: "Auth error from APNS or Web Push Service",
    ]

    /// Stores a message on one app of one device: on Android the notification the SDK posts (or, for a data message,
    /// what the app received); on an iPhone the APNs push FCM makes of it, with every rule of an APNs push.
    private func deliver(_ message: FCMMessage, to recipient: Recipient, messageID: String) async throws -> StoredPushOutcome {
        do {
            return try await store(message, on: recipient, messageID: messageID)
        } catch DeliveryRefusal.deviceGone {
            centers.forget(recipient.device.token)
            throw FCMError(.unregistered, "Requested entity was not found.")
        } catch DeliveryRefusal.unknownApp {
            throw FCMError(.unregistered, "Requested entity was not found.")
        } catch DeliveryRefusal.unstorableIdentifier(let problem) {
            let (field, name) = recipient.device.kind.fcmIdentifierField
            throw FCMError.invalid(field: field, "\(name) \(problem)")
        }
    }

    /// What the device does with a message, by what it becomes there (a notification, an APNs push, a Live Activity
    /// push); ``deliver(_:to:messageID:)`` answers its refusals as FCM does.
    private func store(_ message: FCMMessage, on recipient: Recipient, messageID: String) async throws -> StoredPushOutcome {
        let now = clock()
        let push: StoredPush
        switch recipient.device.kind.fcmArrival {
        case .androidNotification:
            let notification = message.androidNotification(messageID: messageID)
            let data = message.androidData
            let highPriority = (message.android?.priority ?? (notification == nil ? .normal : .high)) == .high
            push = StoredPush(
                app: recipient.app, pushType: "fcm", messageID: messageID, priority: highPriority ? 10 : 5, date: now,
                deviceAction: notification == nil
                    ? "gave the data message to the app's onMessageReceived; a data message shows nothing" : nil,
                request: notification ?? NotificationRequest(identifier: messageID, content: NotificationContent()),
                payload: { .object(JSONObject(data.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })) })
        case .apnsPush:
            if let activityToken = message.apns?.liveActivityToken {
                return try await deliverToLiveActivity(message, token: activityToken, to: recipient, messageID: messageID, now: now)
            }
            push = try Self.apnsPush(of: message, app: recipient.app, messageID: messageID, now: now)
        }
        return try await recipient.session.store(push)
    }

    /// A message with `apns.live_activity_token`: the `liveactivity` push FCM makes of it (its `apns` payload, to the
    /// token, under the app's `.push-type.liveactivity` topic), applied by the iPhone's ActivityKit as an APNs one is
    /// (docs/fcm.md, "Live Activities").
    private func deliverToLiveActivity(
        _ message: FCMMessage, token: String, to recipient: Recipient, messageID: String, now: Date
    ) async throws -> StoredPushOutcome {
        let field = "message.apns.live_activity_token"
        guard LiveActivityTokens.device(of: token.lowercased()) == recipient.device.token else {
            throw FCMError.invalid(
                field: field, "Not a Live Activity token of the device the message's token names (GET /v1/devices/{token}/activities lists them)")
        }
        var headers = message.apns?.headers ?? [:]
        headers["apns-push-type"] = PushType.liveactivity.rawValue
        if headers["apns-priority"] == nil { headers["apns-priority"] = "10" }
        let fields = try Self.headerFields(headers, app: recipient.app, pushType: .liveactivity)
        let activityPush = LiveActivityPush(
            token: token.lowercased(), device: recipient.device.token, app: recipient.app, apnsID: messageID, priority: fields.priority,
            payload: message.apnsPayload, now: now, configuration: DeviceActivities.Configuration())
        do {
            let event = try await recipient.session.updateActivities(app: recipient.app, activityPush.update)
            return .event(action: event?.action ?? "applied the Live Activity push")
        } catch DeliveryRefusal.tokenOfAnotherApp {
            throw FCMError.invalid(field: field, "The Live Activity token belongs to another app of the device than \(recipient.app)")
        }
    }

    /// The APNs push FCM makes of a message for an iPhone, checked as the APNs endpoint checks a push.
    static func apnsPush(of message: FCMMessage, app: String, messageID: String, now: Date) throws -> StoredPush {
        let headers = message.apnsHeaders(now: now)
        let pushTypeName = headers["apns-push-type"] ?? PushType.alert.rawValue
        guard let sentType = PushType(rawValue: pushTypeName), sentType != .liveactivity else {
            throw FCMError.invalid(
                field: "message.apns.headers", "apns-push-type \"\(pushTypeName.prefix(40))\" is not one FCM sends to a device token")
        }
        do {
            return try StoredPush.apns(payload: message.apnsPayload, headers: headers, pushType: sentType, app: app, messageID: messageID, now: now)
        } catch .headers(let reason) {
            throw FCMError.invalid(field: "message.apns.headers", "APNs would refuse these headers: \(reason.rawValue) (\(headerRule(reason)))")
        } catch .payload(let error) {
            throw FCMError.invalid(field: "message.apns.payload", "The APNs payload FCM would send is refused by APNs: \(error)")
        }
    }

    /// The APNs headers FCM sends, held to APNs' own rules (the APNs endpoint's checks): FCM hands them to APNs, which
    /// refuses what breaks them. The topic is the app's, with the push type's suffix, as FCM sets it.
    private static func headerFields(_ headers: [String: String], app: String, pushType: PushType) throws -> ProviderRequestCheck.HeaderFields {
        do {
            return try ProviderRequestCheck.headerFields(
                topic: app + (pushType.topicSuffix ?? ""), collapseID: headers["apns-collapse-id"], priority: headers["apns-priority"],
                pushType: pushType.rawValue, expiration: headers["apns-expiration"])
        } catch {
            throw FCMError.invalid(field: "message.apns.headers", "APNs would refuse these headers: \(error.rawValue) (\(headerRule(error)))")
        }
    }

    /// The rule of APNs' that a header broke, for the answer's message.
    private static func headerRule(_ reason: APNsReason) -> String {
        switch reason {
        case .badCollapseId: "apns-collapse-id has at most 64 bytes"
        case .badPriority: "apns-priority is 10, 5 or 1, as the push type allows"
        case .invalidPushType: "apns-push-type is one APNs knows"
        case .topicDisallowed: "the push type needs its topic's suffix"
        case .badExpirationDate: "apns-expiration is a UNIX time in seconds"
        default: reason.rawValue
        }
    }

    typealias Recipient = FirebaseRecipients.Recipient

    /// The app a message's token or installation ID names.
    private func recipient(of target: FCMMessage.Target) async throws -> Recipient? {
        switch target {
        case .token(let token): try await recipients.recipient(registrationToken: token)
        case .installation(let id): try await recipients.recipient(installationID: id)
        case .topic, .condition: nil
        }
    }

    // MARK: Topic subscriptions

    private func subscribe(_ request: Request, project: String, token: String) async throws -> Response {
        try SiteGuard.checkSameOrigin(request)
        _ = try await authentication.account(of: request, project: project, now: clock())
        let topic = try Self.topic(request.uri.queryParameters["topic_name"].map(String.init) ?? "", field: "topic_name")
        do {
            guard try await store.subscribe(registrationToken: token, project: project, topic: topic, at: clock(), maximumTopics: Self.maximumTopicsPerToken)
            else { throw FCMError(httpStatus: 409, status: "ALREADY_EXISTS", message: "Requested entity already exists") }
        } catch let error as StoreError {
            throw Self.subscriptionError(error)
        }
        return .json(.object(JSONObject([
            ("name", .string("projects/\(project)/registrations/\(token)/topicSubscriptions/\(topic)")), ("topicName", .string(topic)),
            ("createTime", .string(ISO8601.string(from: clock()))),
        ])))
    }

    private func unsubscribe(_ request: Request, project: String, token: String, topic: String) async throws -> Response {
        try SiteGuard.checkSameOrigin(request)
        _ = try await authentication.account(of: request, project: project, now: clock())
        let topic = try Self.topic(topic, field: "topic")
        let removed = try await store.unsubscribe(registrationToken: token, project: project, topic: topic)
        guard removed || request.uri.queryParameters["allow_missing"] == "true" else {
            throw FCMError(httpStatus: 404, status: "NOT_FOUND", message: "Requested entity was not found.")
        }
        return .json(.object(JSONObject()))
    }

    /// `POST /iid/v1:batchAdd` (or `batchRemove`): `{"to": "/topics/<name>", "registration_tokens": […]}`, answered
    /// `{"results": [{} | {"error": …}]}` in order. The project is the service account's.
    private func batch(_ request: Request, adding: Bool) async throws -> Response {
        try SiteGuard.checkSameOrigin(request)
        // The Instance ID API names no project: the token's account's own.
        guard let account = try await authentication.account(of: request, project: nil, now: clock()) else {
            throw FCMError(httpStatus: 401, status: "UNAUTHENTICATED", message: "The Instance ID API takes requests with an access token only.")
        }
        let body: JSONReader
        do {
            body = try await request.jsonBody(limit: 256 * 1024)
        } catch {
            throw FCMError(httpStatus: 400, status: "INVALID_ARGUMENT", message: "\(error)")
        }
        let to = try? body.member("to").string()
        let tokens = (try? body.member("registration_tokens").array().map { element throws(JSONReadError) in try element.string() }) ?? []
        guard let to, !tokens.isEmpty, tokens.count <= Self.maximumBatchTokens else {
            throw FCMError(httpStatus: 400, status: "INVALID_ARGUMENT", message: "INVALID_ARGUMENT")
        }
        let topic = try Self.topic(to, field: "to")
        var results: [JSONValue] = []
        for token in tokens {
            do {
                if adding {
                    _ = try await store.subscribe(
                        registrationToken: token, project: account.project, topic: topic, at: clock(), maximumTopics: Self.maximumTopicsPerToken)
                } else {
                    _ = try await store.unsubscribe(registrationToken: token, project: account.project, topic: topic)
                }
                results.append(.object(JSONObject()))
            } catch let error as StoreError {
                let code =
                    switch error.code {
                    case .full: "TOO_MANY_TOPICS"
                    case .notFound: "NOT_FOUND"
                    case .conflict: "PERMISSION_DENIED"
                    default: "INTERNAL"
                    }
                results.append(["error": .string(code)])
            }
        }
        return .json(["results": .array(results)])
    }

    /// A topic name without its `/topics/` prefix, checked as FCM checks it.
    private static func topic(_ name: String, field: String) throws -> String {
        let topic = name.hasPrefix("/topics/") ? String(name.dropFirst("/topics/".count)) : name
        guard TopicCondition.isValidTopicName(topic) else {
            throw FCMError.invalid(field: field, "Invalid topic name: expected 1 to 900 of letters, digits, '-', '_', '.', '~' and '%'")
        }
        return topic
    }

    private static func subscriptionError(_ error: StoreError) -> FCMError {
        switch error.code {
        case .notFound: FCMError(httpStatus: 404, status: "NOT_FOUND", message: "Requested entity was not found.")
        case .conflict: FCMError(.senderIDMismatch, "SenderId mismatch")
        case .full: FCMError(httpStatus: 429, status: "RESOURCE_EXHAUSTED", message: "TOO_MANY_TOPICS: \(error.message)")
        default: FCMError(.internal, "Internal error encountered.")
        }
    }

    // MARK: Answers

    /// Runs a route, answering its ``FCMError`` (or any failure, as `INTERNAL`) as Google does.
    private func answering(_ route: () async throws -> Response) async -> Response {
        do {
            return try await route()
        } catch let error as FCMError {
            return Self.answer(error)
        } catch let error as APIError {
            return Self.answer(FCMError(httpStatus: 403, status: "PERMISSION_DENIED", message: error.message))
        } catch {
            return Self.answer(FCMError(.internal, "Internal error encountered."))
        }
    }

    static func answer(_ error: FCMError) -> Response {
        answerValue(error).routerResponse
    }

    /// An error as FCM answers it.
    static func answerValue(_ error: FCMError) -> SenderAnswer {
        var headers = HTTPFields()
        // FCM's error page asks senders to honour Retry-After on UNAVAILABLE, and the SDKs do. (Not on a 429: an HTTP
        // client that honours it retries a 429 with one, which the SDK would then never raise as QuotaExceededError.)
        if error.httpStatus == 503 { headers[.retryAfter] = "1" }
        return .json(error.json, status: HTTPResponse.Status(code: error.httpStatus), headers: headers)
    }
}
