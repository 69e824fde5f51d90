import Foundation
import HTTPTypes
import HuddleAPNs
import HuddleCore
import HuddleExpo
import Hummingbird
import Logging
import Metrics
import NIOCore
import Synchronization

/// Expo's push service on Expo's paths (docs/expo.md), for Expo's unchanged server SDKs pointed at Huddle:
///
/// - `POST /--/api/v2/push/send`: one message or an array, at most 100 notifications, answered with one ticket per
///   recipient in order; each accepted message is delivered as Expo delivers it, an APNs push to an iPhone and an FCM
///   message to an Android phone, in one commit with its receipt;
/// - `POST /--/api/v2/push/getReceipts`: `{"ids": […]}`, at most 1,000, answered with the receipts kept (a day).
///
/// Either path may follow a prefix (Python's `PushClient(api_url=…)` puts one there). A middleware before
/// ``SiteGuard``, as the other senders are: SDKs name whatever host they were pointed at.
struct ExpoEndpoint: RouterMiddleware {
    typealias Context = HuddleRequestContext

    let centers: DeviceCenters
    let store: any NotificationStore
    /// The apps installation IDs name (shared with FCM's endpoint).
    let recipients: FirebaseRecipients
    let intake: SenderIntake
    let faults: SenderFaults
    /// The access token every send must present (Expo's "enhanced push security"), when the server has one.
    let accessToken: String?
    let clock: @Sendable () -> Date
    static let sendPath = "/--/api/v2/push/send"
    static let receiptsPath = "/--/api/v2/push/getReceipts"
    /// The most bytes of a request body, compressed or inflated (Expo documents none; 100 messages of 4 KiB fit).
    static let maximumBodySize = 1 << 20
    /// The most bytes of what Expo sends APNs or FCM for one message (`MessageTooBig` past it).
    static let maximumPayloadSize = 4_096
    /// How many devices of a request are delivered to at once (their commits share the store's).
    static let concurrentDeliveries = 16
    /// The longest message the inspector keeps of each notification.
    static let longestMessageKept = 16 * 1024

    static let counterLabel = "huddle_expo_notifications_total"
    static let acceptedCounter = Counter(label: counterLabel, dimensions: [("status", "200"), ("error", "")])
    private static let logger = Logger(label: "huddle.expo")

    enum Route {
        case send, receipts
    }

    /// The route a path names, after any prefix.
    static func route(of path: String) -> Route? {
        if path.hasSuffix(sendPath) { return .send }
        if path.hasSuffix(receiptsPath) { return .receipts }
        return nil
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let route = Self.route(of: request.uri.path) else { return try await next(request, context) }
        guard request.method == .post else {
            return Self.answer(ExpoRequestError(.methodNotAllowed, "\(request.method.rawValue) is not allowed here: Expo's push API takes POST"))
        }
        switch route {
        case .send:
            let response = await send(request, context: context)
            if response.status == .ok { SenderAccepted.tell(context) }
            return response
        case .receipts:
            return await receipts(request)
        }
    }

    // MARK: Sending

    typealias Recipient = FirebaseRecipients.Recipient

    private func send(_ request: Request, context: Context) async -> Response {
        let started = ContinuousClock.now
        let client = ProviderExchange.client(of: context.connectionChannel)
        let path = request.uri.path
        let now = clock()
        do {
            do {
                try SiteGuard.checkSameOrigin(request)
            } catch let refusal as APIError {
                // A page of another site: not a sender this project authorized.
                throw ExpoRequestError(.unauthorized, refusal.message)
            }
            try checkAccessToken(request)
            let json = try await Self.json(of: request)
            let push = try ExpoPushRequest(json: json)
            let messagesJSON: [JSONValue] = if case .array(let elements) = json { elements } else { [json] }
            var found: [Recipient?] = []
            for (_, token) in push.recipients {
                guard let id = ExpoPushToken.installationID(of: token) else {
                    found.append(nil)
                    continue
                }
                found.append(try await recipients.recipient(installationID: String(id)))
            }
            let project = try Self.oneProject(push.recipients.map(\.token), found)
            // What is the same for each token of a message is made once: its text for the inspector, whether it is too big,
            // and what Expo sends APNs and FCM for it (for the kinds of device its tokens reach; a request is one project's).
            var work: [Notification] = []
            var position = 0
            for (index, message) in push.messages.enumerated() {
                let text = messagesJSON[index].jsonUTF8()
                let kept = text.count <= Self.longestMessageKept ? text : nil
                let tooBig = message.textBytes > Self.maximumPayloadSize
                let reached = found[position..<position + message.to.count]
                let forms = ProviderForms(
                    message, project: project, now: now, for: tooBig ? [] : Set(reached.compactMap { $0?.device.kind.expoArrival }))
                for (token, recipient) in zip(message.to, reached) {
                    work.append(Notification(message: message, token: token, recipient: recipient, messageText: kept, isTooBig: tooBig, forms: forms))
                }
                position += message.to.count
            }
            let (tickets, delay) = await deliverAll(work, path: path, client: client, isHTTP2: context.isHTTP2, now: now)
            // A fault's delay delays the answer once, however many notifications it caught.
            if let delay { try? await Task.sleep(for: .milliseconds(delay)) }
            let data: JSONValue = push.answersSingleTicket && tickets.count == 1 ? tickets[0].json : .array(tickets.map(\.json))
            return .json(.object(JSONObject([("data", data)])))
        } catch {
            let refusal = Self.refusal(for: error)
            var record = intake.begin(client: client, isHTTP2: context.isHTTP2, method: request.method.rawValue, path: path)
            intake.finish(
                &record, messageID: "", answer: .refused(status: refusal.httpStatus, reason: refusal.code.rawValue, description: refusal.message),
                started: started)
            return Self.answer(refusal)
        }
    }

    /// One notification of a request: a message to one of its tokens.
    struct Notification: Sendable {
        var message: ExpoMessage
        var token: String
        var recipient: Recipient?
        /// The message as sent, for the inspector; `nil` past ``longestMessageKept``.
        var messageText: [UInt8]?
        /// Whether its texts and data alone are past ``maximumPayloadSize``.
        var isTooBig: Bool
        var forms: ProviderForms
    }

    /// What Expo sends APNs and FCM for one message, made once for all its tokens.
    struct ProviderForms: Sendable {
        struct APNs: Sendable {
            var payload: JSONValue
            var headers: [String: String]
            var size: Int
        }

        struct FCM: Sendable {
            var data: JSONValue
            var size: Int
        }

        var apns: APNs?
        var fcm: FCM?

        /// The forms the `arrivals` need.
        init(_ message: ExpoMessage, project: String, now: Date, for arrivals: Set<DeviceKind.ExpoArrival>) {
            if arrivals.contains(.apnsPush) {
                let payload = message.apnsPayload(project: project)
                apns = APNs(payload: payload, headers: message.apnsHeaders(now: now), size: payload.jsonUTF8().count)
            }
            if arrivals.contains(.fcmMessage) {
                let data = JSONValue.object(JSONObject(message.fcmData(project: project).sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
                fcm = FCM(data: data, size: data.jsonUTF8().count)
            }
        }
    }

    /// Delivers each notification with its own record; the tickets in request order. One device's notifications are
    /// delivered one after another in request order (so that of two with one `tag` the later is the one shown, every
    /// time); devices at once, a bounded number of them, so that their commits share the store's.
    /// - Returns: the tickets, and the longest delay a fault asked for, if one did.
    private func deliverAll(
        _ work: [Notification], path: String, client: String?, isHTTP2: Bool, now: Date
    ) async -> (tickets: [ExpoTicket], delayMilliseconds: Int?) {
        var lanes: [[Int]] = []
        var laneOfDevice: [String: Int] = [:]
        for (position, notification) in work.enumerated() {
            guard let device = notification.recipient?.device.token else {
                lanes.append([position])
                continue
            }
            if let lane = laneOfDevice[device] {
                lanes[lane].append(position)
            } else {
                laneOfDevice[device] = lanes.count
                lanes.append([position])
            }
        }
        return await withTaskGroup(of: [(Int, Delivered)].self) { group in
            var tickets = [ExpoTicket?](repeating: nil, count: work.count)
            var delay: Int?
            var next = 0
            func start() {
                guard next < lanes.count else { return }
                let lane = lanes[next]
                next += 1
                group.addTask {
                    var answered: [(Int, Delivered)] = []
                    for position in lane {
                        answered.append((position, await deliver(work[position], path: path, client: client, isHTTP2: isHTTP2, now: now)))
                    }
                    return answered
                }
            }
            for _ in 0..<Self.concurrentDeliveries { start() }
            for await answered in group {
                for (position, delivered) in answered {
                    tickets[position] = delivered.ticket
                    if let asked = delivered.delayMilliseconds { delay = max(delay ?? 0, asked) }
                }
                start()
            }
            return (tickets.map { $0 ?? .error(.expoError, message: "The notification was not handled.", token: "") }, delay)
        }
    }

    /// A notification's ticket, and the delay a fault asked for it.
    struct Delivered: Sendable {
        var ticket: ExpoTicket
        var delayMilliseconds: Int?
    }

    /// One notification, as Expo handles it: a ticket at once, then its delivery to APNs or FCM, whose outcome is its
    /// receipt.
    private func deliver(_ work: Notification, path: String, client: String?, isHTTP2: Bool, now: Date) async -> Delivered {
        let started = ContinuousClock.now
        var record = intake.begin(client: client, isHTTP2: isHTTP2, method: "POST", path: path)
        record.payload = work.messageText
        record.deviceToken = work.recipient?.device.token
        let ticketID = UUID.timeOrderedLowercasedString(at: now)
        var details = JSONObject([("expoPushToken", .string(String(work.token.prefix(ExpoMessage.longestToken))))])
        if let recipient = work.recipient {
            details["project"] = .string(recipient.project)
            details["app"] = .string(recipient.app)
        }
        let ticket: ExpoTicket
        var receipt: DeliveryReceipt?
        var delay: Int?
        do {
            (ticket, receipt) = try await outcome(of: work, ticketID: ticketID, now: now, record: &record, details: &details, delay: &delay)
        } catch {
            Self.logger.error("an Expo notification failed", metadata: ["ticket": "\(ticketID)", "error": "\(error)"])
            ticket = .error(.expoError, message: "The notification could not be enqueued; send it again.", token: String(work.token.prefix(ExpoMessage.longestToken)))
        }
        details["ticket"] = ticket.json
        if let receipt { details["receipt"] = receipt.expoJSON }
        record.senderDetails = SenderDetails("expo", .object(details))
        switch ticket {
        case .ok(let id):
            intake.finish(&record, messageID: id, answer: .accepted(status: 200), started: started)
        case .error(let error, let message, _):
            intake.finish(&record, messageID: "", answer: .refused(status: 200, reason: error.rawValue, description: message), started: started)
        }
        return Delivered(ticket: ticket, delayMilliseconds: delay)
    }

    /// The ticket of a notification and, for an accepted one, its receipt (stored: with the delivery when it is one).
    private func outcome(
        of work: Notification, ticketID: String, now: Date, record: inout SenderRequestRecord, details: inout JSONObject, delay: inout Int?
    ) async throws -> (ExpoTicket, DeliveryReceipt?) {
        let token = String(work.token.prefix(ExpoMessage.longestToken))
        guard ExpoPushToken.installationID(of: work.token) != nil else {
            return (.error(.deviceNotRegistered, message: "\"\(token)\" is not a valid Expo push token", token: token), nil)
        }
        func failed(_ error: ExpoDeliveryError, _ message: String? = nil) async throws -> (ExpoTicket, DeliveryReceipt?) {
            let receipt = DeliveryReceipt(id: ticketID, createdAt: now, error: error.rawValue, message: message ?? error.message(token: token))
            try await store.saveReceipts([receipt])
            return (.ok(id: ticketID), receipt)
        }
        if !faults.isEmpty,
            let effect = faults.take(
                device: work.recipient?.device.token ?? "", topic: work.recipient?.app ?? "",
                pushType: PushType(rawValue: work.message.apnsPushType) ?? .alert,
                rateLimited: .expo(.messageRateExceeded, in: .receipt), now: now)
        {
            record.fault = effect.summary
            delay = effect.delayMilliseconds
            switch effect.answer {
            case .expo(let error, .ticket)?: return (.error(error, message: error.message(token: token), token: token), nil)
            case .expo(let error, .receipt)?: return try await failed(error)
            default: break
            }
        }
        // A token of no app now: Expo takes it (it knows every token it gave) and APNs or FCM refuse it.
        guard let recipient = work.recipient else { return try await failed(.deviceNotRegistered) }
        if work.isTooBig { return try await failed(.messageTooBig) }
        let push: StoredPush
        switch made(work.message, forms: work.forms, for: recipient, messageID: ticketID, now: now, details: &details) {
        case .success(let made): push = made
        case .failure(let refusal): return try await failed(refusal.error, refusal.message)
        }
        let receipt = DeliveryReceipt(id: ticketID, createdAt: now)
        do {
            record.storedApp = recipient.app
            record.note(try await recipient.session.store(push, receipt: receipt))
            return (.ok(id: ticketID), receipt)
        } catch DeliveryRefusal.deviceGone {
            centers.forget(recipient.device.token)
            return try await failed(.deviceNotRegistered)
        } catch DeliveryRefusal.unknownApp {
            return try await failed(.deviceNotRegistered)
        } catch DeliveryRefusal.unstorableIdentifier(let problem) {
            return try await failed(.providerError, "The notification's identifier (its tag, else its collapseId) is \(problem)")
        }
    }

    /// Why APNs or FCM would refuse what Expo sends them for a message.
    struct ProviderRefusal: Error {
        var error: ExpoDeliveryError
        var message: String
    }

    /// What Expo sends for a message to the recipient's device, as that device stores it: an APNs push to an iPhone, an
    /// FCM message of a notification and data to Android (shown as any FCM notification is).
    private func made(
        _ message: ExpoMessage, forms: ProviderForms, for recipient: Recipient, messageID: String, now: Date, details: inout JSONObject
    ) -> Result<StoredPush, ProviderRefusal> {
        let tooBig = ProviderRefusal(error: .messageTooBig, message: ExpoDeliveryError.messageTooBig.message(token: ""))
        switch recipient.device.kind.expoArrival {
        case .apnsPush:
            // Made for every kind of device the message's tokens reach (ProviderForms), so here.
            guard let apns = forms.apns else { return .failure(ProviderRefusal(error: .expoError, message: "No APNs push was made for the notification.")) }
            let (payload, headers, size) = (apns.payload, apns.headers, apns.size)
            // What was sent is kept whole only within the limit: the inspector's history is bounded by bytes.
            details["apns"] = .object(JSONObject([
                ("headers", .object(JSONObject(headers.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))),
                size <= Self.maximumPayloadSize ? ("payload", payload) : ("payloadBytes", .integer(Int64(size))),
            ]))
            guard size <= Self.maximumPayloadSize else { return .failure(tooBig) }
            let pushType = PushType(rawValue: message.apnsPushType) ?? .alert
            do throws(StoredPush.APNsRefusal) {
                return .success(try StoredPush.apns(payload: payload, headers: headers, pushType: pushType, app: recipient.app, messageID: messageID, now: now))
            } catch {
                switch error {
                case .headers(let reason):
                    return .failure(ProviderRefusal(error: .providerError, message: "APNs refused the notification: \(reason.rawValue)"))
                case .payload(let error):
                    return .failure(ProviderRefusal(error: .providerError, message: "APNs refused the notification's payload: \(error)"))
                }
            }
        case .fcmMessage:
            guard let fcm = forms.fcm else { return .failure(ProviderRefusal(error: .expoError, message: "No FCM message was made for the notification.")) }
            let (dataJSON, size) = (fcm.data, fcm.size)
            details["fcm"] = .object(JSONObject([
                ("priority", .string(message.isHighPriorityOnAndroid ? "high" : "normal")),
                size <= Self.maximumPayloadSize ? ("data", dataJSON) : ("dataBytes", .integer(Int64(size))),
            ]))
            guard size <= Self.maximumPayloadSize else { return .failure(tooBig) }
            let request = message.androidRequest(messageID: messageID)
            let action: String? =
                request == nil
                ? "gave the data message to the app (expo-notifications' background task); a message with no title or body shows nothing" : nil
            return .success(StoredPush(
                app: recipient.app, pushType: "fcm", messageID: messageID, priority: message.isHighPriorityOnAndroid ? 10 : 5, date: now,
                deviceAction: action, request: request ?? NotificationRequest(identifier: messageID, content: NotificationContent()),
                payload: { dataJSON }))
        }
    }

    /// The one project a request's tokens belong to (the default when none names an app); a request of more than one
    /// is refused, naming each project's tokens, as Expo does.
    private static func oneProject(_ tokens: [String], _ recipients: [Recipient?]) throws -> String {
        var tokensByProject: [(project: String, tokens: [String])] = []
        for (token, recipient) in zip(tokens, recipients) {
            guard let project = recipient?.project else { continue }
            if let index = tokensByProject.firstIndex(where: { $0.project == project }) {
                tokensByProject[index].tokens.append(token)
            } else {
                tokensByProject.append((project, [token]))
            }
        }
        guard tokensByProject.count > 1 else { return tokensByProject.first?.project ?? ExpoPushToken.defaultProject }
        throw ExpoRequestError(
            .tooManyExperienceIDs,
            "All push notification messages in the same request must be for the same project; check the details field to investigate conflicting tokens.",
            details: .object(JSONObject(tokensByProject.map { ($0.project, .array($0.tokens.map(JSONValue.string))) })))
    }

    /// Refuses a send without the server's access token, when it has one (`huddle serve --expo-access-token`).
    private func checkAccessToken(_ request: Request) throws {
        guard let accessToken else { return }
        guard let presented = Secrets.bearer(request), Secrets.constantTimeEqual(presented, accessToken) else {
            throw ExpoRequestError(
                .unauthorized, "The bearer token is invalid: this project requires an access token (send Authorization: Bearer <token>).")
        }
    }

    // MARK: Receipts

    /// The receipts asked for, in the order asked, each once; those not kept (unknown, or past their day, which
    /// ``ReceiptRetention`` deletes) left out.
    private func receipts(_ request: Request) async -> Response {
        do {
            let ids = try ExpoReceiptRequest(json: try await Self.json(of: request)).ids
            let kept = try await store.receipts(
                ids: ids.filter { $0.utf8.count <= DeliveryReceipt.longestID }, keptSince: clock() - ReceiptRetention.lifetime)
            let byID = Dictionary(kept.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            var answered = Set<String>()
            var members: [(String, JSONValue)] = []
            for id in ids where answered.insert(id).inserted {
                if let receipt = byID[id] { members.append((id, receipt.expoJSON)) }
            }
            return .json(.object(JSONObject([("data", .object(JSONObject(members)))])))
        } catch {
            return Self.answer(Self.refusal(for: error))
        }
    }

    // MARK: Bodies and answers

    /// A request's JSON body, inflated when it came compressed, whatever its `Content-Type` (Python's SDK sends none from
    /// a session of the caller's own).
    private static func json(of request: Request) async throws -> JSONValue {
        var body: ByteBuffer
        do {
            body = try await request.collectBody(limit: maximumBodySize)
        } catch {
            throw ExpoRequestError(.validationError, "The request body is larger than \(maximumBodySize) bytes.")
        }
        if let encoding = request.headers[.contentEncoding]?.lowercased(), encoding != "identity" {
            guard CompressedBody.encodings.contains(encoding) else {
                throw ExpoRequestError(.validationError, "Content-Encoding \(encoding.prefix(40)) is not supported: send gzip, deflate or none.")
            }
            do {
                body = try CompressedBody.inflate(body, encoding: encoding, limit: maximumBodySize)
            } catch {
                throw ExpoRequestError(.validationError, "The request body cannot be inflated: \(error)")
            }
        }
        do {
            return try JSONParser.parse(body.readableBytesView)
        } catch {
            throw ExpoRequestError(.validationError, "The request body is not JSON: \(error)")
        }
    }

    /// A failure as Expo's answer: its own refusals as they are, anything else an internal error (logged).
    private static func refusal(for error: any Error) -> ExpoRequestError {
        switch error {
        case let refusal as ExpoRequestError: return refusal
        case let error as StoreError where error.code == .unavailable:
            return ExpoRequestError(.internalServerError, "The push service is unavailable; try again.")
        default:
            logger.error("an Expo request failed", metadata: ["error": "\(error)"])
            return ExpoRequestError(.internalServerError, "An unknown error occurred.")
        }
    }

    static func answer(_ error: ExpoRequestError) -> Response {
        .json(error.json, status: HTTPResponse.Status(code: error.httpStatus))
    }
}

extension FirebaseRecipients.Recipient {
    /// The Expo project its token belongs to.
    var project: String { installation.expoProject ?? ExpoPushToken.defaultProject }
}
