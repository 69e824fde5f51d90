import Foundation
import HTTPTypes
import HuddleAPNs
import HuddleCore
import HuddleExpo
import HuddleFCM
import Synchronization

/// A failure an admin asked a sender API for (`POST /v1/admin/faults`): which pushes it catches, and what they get
/// instead of the answer they would have had. Retry and back-off code can only be tested against a server that fails
/// when told to.
struct SenderFault: Sendable {
    /// Which pushes a fault catches; a `nil` part catches any.
    struct Match: Sendable, Hashable {
        var device: String?
        var topic: String?
        var pushType: PushType?
        /// The sender whose answer or connection the fault names (APNs for a reason or a connection action, FCM for
        /// an FCM error); a delay or a rate catches every sender's.
        var sender: Sender?

        func catches(device: String, topic: String, pushType: PushType, sender: Sender) -> Bool {
            (self.device.map { $0 == device } ?? true) && (self.topic.map { $0 == topic } ?? true)
                && (self.pushType.map { $0 == pushType } ?? true) && (self.sender.map { $0 == sender } ?? true)
        }
    }

    /// What happens to the connection instead of, or after, an answer.
    enum ConnectionAction: String, Sendable, CaseIterable {
        /// No answer: the HTTP/2 stream is reset (`RST_STREAM`); an HTTP/1.1 connection is closed.
        case resetStream = "reset-stream"
        /// No answer: the connection is closed.
        case close
        /// The answer (`503 Shutdown` unless another reason is given), then a `GOAWAY` whose debug data is the
        /// reason as APNs sends it, `{"reason":"Shutdown"}`, and the connection closes once its streams end.
        case goAway = "goaway"
    }

    /// The most faults a server holds at once.
    static let maximumCount = 100
    /// The longest delay a fault may add, in milliseconds.
    static let maximumDelayMilliseconds = 60_000
    /// The most pushes a fault may catch, or a rate may allow per second.
    static let maximumTimes = 1_000_000

    let id: Int
    let match: Match
    /// What is answered instead of the push's own answer, in its sender's terms; `nil` keeps the push's own.
    let answer: FaultAnswer?
    /// How long the answer waits, in milliseconds.
    let delayMilliseconds: Int?
    let connection: ConnectionAction?
    /// A rate fault: pushes to one device beyond this many in a second are answered `429 TooManyRequests`;
    /// those within it go on as if there were no fault.
    let pushesPerSecond: Int?
    /// How many more pushes the fault catches; `nil` until it is removed.
    var remaining: Int?
    /// How many pushes it caught.
    var caught = 0
    let createdAt: Date

    /// Reads a fault from the admin API's JSON: `{"device", "topic", "pushType", "reason", "timestamp",
    /// "delayMilliseconds", "connection", "pushesPerSecond", "count"}`, every member optional but one
    /// effect required.
    /// - Throws: ``JSONReadError`` naming the member that is wrong.
    init(id: Int, json body: JSONReader, now: Date) throws(JSONReadError) {
        try body.rejectUnknownMembers([
            "device", "topic", "pushType", "reason", "fcmError", "webPushStatus", "expoError", "expoIn", "timestamp", "delayMilliseconds", "connection", "pushesPerSecond",
            "count",
        ])
        func text(_ name: String, maximumLength: Int) throws(JSONReadError) -> String? {
            guard let member = try body.optionalMember(name) else { return nil }
            let value = try member.string()
            guard !value.isEmpty, value.utf8.count <= maximumLength else {
                throw member.failure("expected 1 to \(maximumLength) bytes")
            }
            return value
        }
        func whole(_ name: String, in range: ClosedRange<Int>) throws(JSONReadError) -> Int? {
            guard let member = try body.optionalMember(name) else { return nil }
            let value = try member.integer()
            guard range.contains(value) else { throw member.failure("expected a whole number from \(range.lowerBound) to \(range.upperBound)") }
            return value
        }
        /// A member naming one of `Value`'s cases, listed in the refusal (`what` says whose they are).
        func oneOf<Value: RawRepresentable & CaseIterable>(
            _ name: String, _ type: Value.Type, what: String, maximumLength: Int = 64
        ) throws(JSONReadError) -> Value? where Value.RawValue == String {
            guard let text = try text(name, maximumLength: maximumLength) else { return nil }
            guard let value = Value(rawValue: text) else {
                throw try body.member(name).failure("expected one of \(what)\(Value.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return value
        }
        let pushType = try oneOf("pushType", PushType.self, what: "", maximumLength: 32)
        var reason: APNsReason?
        if let name = try text("reason", maximumLength: 64) {
            guard let known = APNsReason(rawValue: name) else {
                throw try body.member("reason").failure("expected one of APNs' reasons, such as Unregistered, TooManyRequests, InternalServerError, ServiceUnavailable, Shutdown")
            }
            reason = known
        }
        let fcmError = try oneOf("fcmError", FCMError.Code.self, what: "FCM's error codes: ")
        let webPushStatus = try body.optionalMember("webPushStatus").map { member throws(JSONReadError) in
            let status = try member.integer()
            guard FaultAnswer.webPushStatuses.contains(status) else {
                throw member.failure("expected one of the statuses a push service answers on demand: \(FaultAnswer.webPushStatuses.map(String.init).joined(separator: ", "))")
            }
            return status
        }
        let expoError = try oneOf("expoError", ExpoDeliveryError.self, what: "Expo's ticket and receipt errors: ")
        var expoStage = FaultAnswer.ExpoStage.receipt
        if let name = try text("expoIn", maximumLength: 16) {
            guard let stage = FaultAnswer.ExpoStage(rawValue: name), expoError != nil else {
                throw try body.member("expoIn").failure("expected ticket or receipt, with an expoError")
            }
            expoStage = stage
        }
        if [reason != nil, fcmError != nil, webPushStatus != nil, expoError != nil].filter({ $0 }).count > 1 {
            throw body.failure("a fault answers APNs pushes (reason), FCM messages (fcmError), web pushes (webPushStatus) or Expo messages (expoError), one of them")
        }
        var connection: ConnectionAction?
        if let name = try text("connection", maximumLength: 32) {
            guard let action = ConnectionAction(rawValue: name) else {
                throw try body.member("connection").failure(
                    "expected one of \(ConnectionAction.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            connection = action
        }
        if connection != nil, fcmError != nil || webPushStatus != nil || expoError != nil {
            throw try body.member("connection").failure("connection faults are for the APNs endpoint's connections, not FCM, web push or Expo messages")
        }
        if connection == .goAway, reason == nil { reason = .shutdown }
        if connection == .resetStream || connection == .close, reason != nil {
            throw try body.member("reason").failure("a fault that \(connection == .close ? "closes the connection" : "resets the stream") sends no answer, so no reason")
        }
        let delay = try whole("delayMilliseconds", in: 0...Self.maximumDelayMilliseconds)
        let pushesPerSecond = try whole("pushesPerSecond", in: 1...Self.maximumTimes)
        if pushesPerSecond != nil, reason != nil || fcmError != nil || webPushStatus != nil || expoError != nil || connection != nil || delay != nil {
            throw body.failure("pushesPerSecond answers TooManyRequests beyond the rate; it takes no reason, connection or delay")
        }
        guard reason != nil || fcmError != nil || webPushStatus != nil || expoError != nil || connection != nil || delay != nil || pushesPerSecond != nil
        else {
            throw body.failure("say what the fault does: reason, fcmError, webPushStatus, expoError, connection, delayMilliseconds or pushesPerSecond")
        }
        let sender: Sender? =
            fcmError != nil ? .fcm : webPushStatus != nil ? .webPush : expoError != nil ? .expo : (reason != nil || connection != nil) ? .apns : nil
        match = Match(
            device: try text("device", maximumLength: 200)?.lowercased(), topic: try text("topic", maximumLength: 255), pushType: pushType,
            sender: sender)
        var timestamp: Date?
        if let member = try body.optionalMember("timestamp") {
            guard reason == .unregistered || reason == .expiredToken else {
                throw member.failure("only an Unregistered or ExpiredToken answer has a timestamp")
            }
            // Milliseconds since 1970, as APNs answers it; bounded to years a device could have been seen.
            let milliseconds = try member.integer()
            guard (0...4_102_444_800_000).contains(milliseconds) else { throw member.failure("expected milliseconds since 1970, before 2100") }
            timestamp = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        } else if reason == .unregistered || reason == .expiredToken {
            timestamp = now
        }
        self.id = id
        answer = reason.map { .apns($0, timestamp: timestamp) } ?? fcmError.map(FaultAnswer.fcm) ?? webPushStatus.map(FaultAnswer.webPush)
            ?? expoError.map { .expo($0, in: expoStage) }
        delayMilliseconds = delay
        self.connection = connection
        self.pushesPerSecond = pushesPerSecond
        remaining = try whole("count", in: 1...Self.maximumTimes)
        createdAt = now
    }

    var json: JSONValue {
        var object = JSONObject([("id", .integer(Int64(id)))])
        if let device = match.device { object["device"] = .string(device) }
        if let topic = match.topic { object["topic"] = .string(topic) }
        if let pushType = match.pushType { object["pushType"] = .string(pushType.rawValue) }
        switch answer {
        case .apns(let reason, let timestamp):
            object["status"] = .integer(Int64(reason.status.code))
            object["reason"] = .string(reason.rawValue)
            if let timestamp { object["timestamp"] = .integer(timestamp.milliseconds) }
        case .fcm(let code):
            object["status"] = .integer(Int64(code.httpStatus))
            object["fcmError"] = .string(code.rawValue)
        case .webPush(let status):
            object["status"] = .integer(Int64(status))
            object["webPushStatus"] = .integer(Int64(status))
        case .expo(let error, let stage):
            object["expoError"] = .string(error.rawValue)
            object["expoIn"] = .string(stage.rawValue)
        case nil:
            break
        }
        if let delayMilliseconds { object["delayMilliseconds"] = .integer(Int64(delayMilliseconds)) }
        if let connection { object["connection"] = .string(connection.rawValue) }
        if let pushesPerSecond { object["pushesPerSecond"] = .integer(Int64(pushesPerSecond)) }
        object["remaining"] = remaining.map { .integer(Int64($0)) } ?? .null
        object["caught"] = .integer(Int64(caught))
        object["createdAt"] = .string(ISO8601.string(from: createdAt))
        return .object(object)
    }
}

/// What a fault answers instead of a request's own answer, in the terms of the sender it names.
enum FaultAnswer: Sendable, Hashable {
    /// An APNs reason; for `Unregistered` and `ExpiredToken`, with the date answered (when the token stopped being valid).
    case apns(APNsReason, timestamp: Date? = nil)
    /// An FCM error code (`UNAVAILABLE`, `QUOTA_EXCEEDED`…).
    case fcm(FCMError.Code)
    /// A push service's status (410, 429, 500, 503), answered in the words of the service the subscription imitates.
    case webPush(Int)
    /// An Expo error, in the message's ticket or (after an ok ticket) in its receipt.
    case expo(ExpoDeliveryError, in: ExpoStage)

    /// Where an Expo error surfaces.
    enum ExpoStage: String, Sendable, Hashable {
        case ticket, receipt
    }

    /// The statuses a web push fault may answer: the subscription gone, too many requests, the service failing.
    static let webPushStatuses = [410, 429, 500, 503]

    /// The sender whose answer it is.
    var sender: Sender {
        switch self {
        case .apns: .apns
        case .fcm: .fcm
        case .webPush: .webPush
        case .expo: .expo
        }
    }

    /// `answered 410 Unregistered`, as the inspector shows it.
    var summary: String {
        switch self {
        case .apns(let reason, _): "answered \(reason.status.code) \(reason.rawValue)"
        case .fcm(let code): "answered \(code.httpStatus) \(code.rawValue)"
        case .webPush(let status): "answered \(status)"
        case .expo(let error, let stage): "\(error.rawValue) in the \(stage.rawValue)"
        }
    }
}

/// What a fault does to the push it caught.
struct FaultEffect: Sendable, Equatable {
    let faultID: Int
    let answer: FaultAnswer?
    let delayMilliseconds: Int?
    let connection: SenderFault.ConnectionAction?

    /// How the inspector shows it.
    var summary: String {
        var parts: [String] = []
        if let delayMilliseconds { parts.append("delayed \(delayMilliseconds) ms") }
        if let answer { parts.append(answer.summary) }
        switch connection {
        case .resetStream: parts.append("stream reset, no answer")
        case .close: parts.append("connection closed, no answer")
        case .goAway: parts.append("GOAWAY sent")
        case nil: break
        }
        return "fault \(faultID): " + parts.joined(separator: ", ")
    }
}

/// The faults a server holds, off until an admin adds one. Taking a fault for a push and counting it down
/// is one step under one lock, so racing pushes never catch a fault more times than it was asked for.
final class SenderFaults: Sendable {
    private struct State {
        var faults: [SenderFault] = []
        var nextID = 1
        /// The second the rate faults count pushes in, and per fault and device the pushes in it.
        var windowSecond: Int64 = 0
        var windows: [RateWindowKey: Int] = [:]
    }

    private struct RateWindowKey: Hashable {
        var faultID: Int
        var device: String
    }

    /// The most devices whose rate is counted at once; past it, windows of past seconds are dropped.
    private static let maximumRateWindows = 10_000

    private let state = Mutex(State())

    /// Whether no fault is set: the push path's one check when faults are off.
    var isEmpty: Bool { state.withLock { $0.faults.isEmpty } }

    /// Adds the fault `make` reads, numbered here.
    /// - Throws: ``APIError`` `conflict` when the server holds its most faults already; what `make` throws.
    func add(_ make: (Int) throws(JSONReadError) -> SenderFault) throws -> SenderFault {
        try state.withLock { state in
            guard state.faults.count < SenderFault.maximumCount else {
                throw APIError(.conflict, "the server holds \(SenderFault.maximumCount) faults, its most; remove some first")
            }
            let fault = try make(state.nextID)
            state.nextID += 1
            state.faults.append(fault)
            return fault
        }
    }

    var all: [SenderFault] { state.withLock { $0.faults } }

    /// Removes one fault.
    /// - Returns: whether there was one with this id.
    func remove(id: Int) -> Bool {
        state.withLock { state in
            guard let index = state.faults.firstIndex(where: { $0.id == id }) else { return false }
            state.faults.remove(at: index)
            state.windows = state.windows.filter { $0.key.faultID != id }
            return true
        }
    }

    /// Removes every fault.
    /// - Returns: how many there were.
    func removeAll() -> Int {
        state.withLock { state in
            defer {
                state.faults = []
                state.windows = [:]
            }
            return state.faults.count
        }
    }

    /// The effect of the first fault that catches this push, counted against the fault; a fault whose count
    /// is spent is removed.
    /// - Parameter rateLimited: what the push's sender answers a push beyond a rate fault's (APNs' `429
    ///   TooManyRequests`, FCM's `429 QUOTA_EXCEEDED`), which names the sender too.
    func take(device: String, topic: String, pushType: PushType, rateLimited: FaultAnswer, now: Date) -> FaultEffect? {
        let sender = rateLimited.sender
        return state.withLock { state in
            for index in state.faults.indices
            where state.faults[index].match.catches(device: device, topic: topic, pushType: pushType, sender: sender) {
                let fault = state.faults[index]
                if let limit = fault.pushesPerSecond, !Self.exceeds(limit, faultID: fault.id, device: device, now: now, &state) {
                    continue
                }
                state.faults[index].caught += 1
                if let remaining = fault.remaining {
                    if remaining <= 1 { state.faults.remove(at: index) } else { state.faults[index].remaining = remaining - 1 }
                }
                return FaultEffect(
                    faultID: fault.id, answer: fault.pushesPerSecond != nil ? rateLimited : fault.answer,
                    delayMilliseconds: fault.delayMilliseconds, connection: fault.connection)
            }
            return nil
        }
    }

    /// Counts a push in its device's current second: whether it is past `limit`. Constant time, under the
    /// lock every push takes: a new second forgets the last one's counts, and past the bound of devices in one
    /// second, further devices are not counted (and not refused) until the next.
    private static func exceeds(_ limit: Int, faultID: Int, device: String, now: Date, _ state: inout State) -> Bool {
        let second = Int64(now.timeIntervalSince1970.rounded(.down))
        if second != state.windowSecond {
            state.windowSecond = second
            state.windows.removeAll(keepingCapacity: true)
        }
        let key = RateWindowKey(faultID: faultID, device: device)
        guard let pushes = state.windows[key] else {
            guard state.windows.count < maximumRateWindows else { return false }
            state.windows[key] = 1
            return 1 > limit
        }
        state.windows[key] = pushes + 1
        return pushes + 1 > limit
    }
}
