import Foundation
import HuddleAPNs
import HuddleCore
import HuddleFCM
@testable import HuddleServer
import Testing

@Suite struct SenderFaultsTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let device = String(repeating: "ab", count: 32)

    func add(_ faults: SenderFaults, _ json: String) throws -> SenderFault {
        let body = JSONReader(try JSONParser.parse(Array(json.utf8)))
        return try faults.add { id throws(JSONReadError) in try SenderFault(id: id, json: body, now: now) }
    }

    func take(_ faults: SenderFaults, device: String? = nil, topic: String = "com.example.app", type: PushType = .alert, at date: Date? = nil)
        -> FaultEffect?
    {
        faults.take(device: device ?? self.device, topic: topic, pushType: type, rateLimited: .apns(.tooManyRequests), now: date ?? now)
    }

    /// A push through the sender `rateLimited` names, answered in its words beyond a rate.
    func take(_ faults: SenderFaults, answeringBeyondARate rateLimited: FaultAnswer) -> FaultEffect? {
        faults.take(device: device, topic: "com.example.app", pushType: .alert, rateLimited: rateLimited, now: now)
    }

    @Test func theFirstFaultThatMatchesCatchesThePushAndASpentOneIsRemoved() throws {
        let faults = SenderFaults()
        #expect(faults.isEmpty)
        _ = try add(faults, #"{"pushType": "voip", "reason": "InternalServerError"}"#)
        _ = try add(faults, #"{"topic": "com.example.app", "reason": "Unregistered", "count": 1}"#)
        #expect(take(faults, topic: "com.example.other") == nil)
        let unregistered = try #require(take(faults))
        // Without a timestamp of its own, an Unregistered answer says the token stopped being valid when the fault was made.
        #expect(unregistered.answer == .apns(.unregistered, timestamp: now))
        #expect(take(faults) == nil)
        #expect(take(faults, type: .voip)?.answer == .apns(.internalServerError))
        #expect(faults.all.map(\.caught) == [1])
    }

    /// An FCM error catches FCM messages only and an APNs reason APNs pushes only; a rate answers each API's own
    /// refusal (429 TooManyRequests, 429 QUOTA_EXCEEDED); a delay catches both.
    @Test func eachAPIHasItsOwnFaultsAndARateAnswersInItsWords() throws {
        let faults = SenderFaults()
        _ = try add(faults, #"{"fcmError": "UNAVAILABLE", "count": 1}"#)
        _ = try add(faults, #"{"reason": "Unregistered", "count": 1}"#)
        #expect(take(faults, answeringBeyondARate: .apns(.tooManyRequests))?.answer == .apns(.unregistered, timestamp: now))
        #expect(take(faults, answeringBeyondARate: .fcm(.quotaExceeded))?.answer == .fcm(.unavailable))
        #expect(faults.isEmpty)
        _ = try add(faults, #"{"pushesPerSecond": 1}"#)
        #expect(take(faults, answeringBeyondARate: .fcm(.quotaExceeded)) == nil)
        #expect(take(faults, answeringBeyondARate: .fcm(.quotaExceeded))?.answer == .fcm(.quotaExceeded))
        _ = faults.removeAll()
        _ = try add(faults, #"{"delayMilliseconds": 5, "count": 2}"#)
        #expect(take(faults, answeringBeyondARate: .fcm(.quotaExceeded))?.delayMilliseconds == 5)
        #expect(take(faults, answeringBeyondARate: .apns(.tooManyRequests))?.delayMilliseconds == 5)
        #expect(throws: JSONReadError.self) { try add(SenderFaults(), #"{"fcmError": "UNAVAILABLE", "reason": "Unregistered"}"#) }
        #expect(throws: JSONReadError.self) { try add(SenderFaults(), #"{"fcmError": "UNAVAILABLE", "connection": "close"}"#) }
        #expect(throws: JSONReadError.self) { try add(SenderFaults(), #"{"fcmError": "NOPE"}"#) }
    }

    @Test func racingPushesCatchACountedFaultExactlyThatOften() async throws {
        let faults = SenderFaults()
        _ = try add(faults, #"{"reason": "ServiceUnavailable", "count": 25}"#)
        let caught = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<200 { group.addTask { take(faults) != nil } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(caught == 25)
        #expect(faults.isEmpty)
    }

    @Test func aRateCountsEachDeviceInItsOwnSecond() throws {
        let faults = SenderFaults()
        _ = try add(faults, #"{"pushesPerSecond": 2}"#)
        let other = String(repeating: "cd", count: 32)
        #expect([take(faults), take(faults), take(faults)].map { $0?.answer } == [nil, nil, .apns(.tooManyRequests)])
        #expect(take(faults, device: other) == nil)
        // The next second starts again.
        #expect(take(faults, at: now.addingTimeInterval(1)) == nil)
        #expect(faults.all.first?.caught == 1)
    }

    @Test func aGoAwayAnswersShutdownUnlessToldAnotherReason() throws {
        let faults = SenderFaults()
        #expect(try add(faults, #"{"connection": "goaway"}"#).answer == .apns(.shutdown))
        #expect(try add(faults, #"{"connection": "goaway", "reason": "ServiceUnavailable"}"#).answer == .apns(.serviceUnavailable))
    }

    @Test func aServerHoldsAtMostItsBoundOfFaults() throws {
        let faults = SenderFaults()
        for _ in 0..<SenderFault.maximumCount { _ = try add(faults, #"{"reason": "Shutdown"}"#) }
        #expect(throws: APIError.self) { try add(faults, #"{"reason": "Shutdown"}"#) }
        #expect(faults.removeAll() == SenderFault.maximumCount)
        #expect(faults.isEmpty)
    }

    /// The admin API's JSON of a fault, as it was before faults named their sender: each member, in order.
    @Test func aFaultsJSONIsAsTheAdminAPIHasAlwaysWrittenIt() throws {
        let faults = SenderFaults()
        let apns = try add(faults, #"{"device": "ABAB", "reason": "Unregistered", "count": 2}"#)
        #expect(apns.json.jsonText() == #"{"id":1,"device":"abab","status":410,"reason":"Unregistered","timestamp":1800000000000,"remaining":2,"caught":0,"createdAt":"2027-01-15T08:00:00Z"}"#)
        let fcm = try add(faults, #"{"fcmError": "UNAVAILABLE", "delayMilliseconds": 5}"#)
        #expect(fcm.json.jsonText() == #"{"id":2,"status":503,"fcmError":"UNAVAILABLE","delayMilliseconds":5,"remaining":null,"caught":0,"createdAt":"2027-01-15T08:00:00Z"}"#)
        let rate = try add(faults, #"{"pushesPerSecond": 3, "topic": "com.example.app"}"#)
        #expect(rate.json.jsonText() == #"{"id":3,"topic":"com.example.app","pushesPerSecond":3,"remaining":null,"caught":0,"createdAt":"2027-01-15T08:00:00Z"}"#)
    }
}
