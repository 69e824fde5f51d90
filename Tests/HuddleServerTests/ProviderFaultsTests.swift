import Foundation
import HuddleAPNs
import HuddleCore
@testable import HuddleServer
import Testing

@Suite struct ProviderFaultsTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let device = String(repeating: "ab", count: 32)

    func add(_ faults: ProviderFaults, _ json: String) throws -> ProviderFault {
        let body = JSONReader(try JSONParser.parse(Array(json.utf8)))
        return try faults.add { id throws(JSONReadError) in try ProviderFault(id: id, json: body, now: now) }
    }

    func take(_ faults: ProviderFaults, device: String? = nil, topic: String = "com.example.app", type: PushType = .alert, at date: Date? = nil)
        -> FaultEffect?
    {
        faults.take(device: device ?? self.device, topic: topic, pushType: type, now: date ?? now)
    }

    @Test func theFirstFaultThatMatchesCatchesThePushAndASpentOneIsRemoved() throws {
        let faults = ProviderFaults()
        #expect(faults.isEmpty)
        _ = try add(faults, #"{"pushType": "voip", "reason": "InternalServerError"}"#)
        _ = try add(faults, #"{"topic": "com.example.app", "reason": "Unregistered", "count": 1}"#)
        #expect(take(faults, topic: "com.example.other") == nil)
        let unregistered = try #require(take(faults))
        #expect(unregistered.reason == .unregistered)
        // Without a timestamp of its own, an Unregistered answer says the token stopped being valid when the fault was made.
        #expect(unregistered.timestamp == now)
        #expect(take(faults) == nil)
        #expect(take(faults, type: .voip)?.reason == .internalServerError)
        #expect(faults.all.map(\.caught) == [1])
    }

    @Test func racingPushesCatchACountedFaultExactlyThatOften() async throws {
        let faults = ProviderFaults()
        _ = try add(faults, #"{"reason": "ServiceUnavailable", "count": 25}"#)
        let caught = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<200 { group.addTask { take(faults) != nil } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(caught == 25)
        #expect(faults.isEmpty)
    }

    @Test func aRateCountsEachDeviceInItsOwnSecond() throws {
        let faults = ProviderFaults()
        _ = try add(faults, #"{"pushesPerSecond": 2}"#)
        let other = String(repeating: "cd", count: 32)
        #expect([take(faults), take(faults), take(faults)].map { $0?.reason } == [nil, nil, .tooManyRequests])
        #expect(take(faults, device: other) == nil)
        // The next second starts again.
        #expect(take(faults, at: now.addingTimeInterval(1)) == nil)
        #expect(faults.all.first?.caught == 1)
    }

    @Test func aGoAwayAnswersShutdownUnlessToldAnotherReason() throws {
        let faults = ProviderFaults()
        #expect(try add(faults, #"{"connection": "goaway"}"#).reason == .shutdown)
        #expect(try add(faults, #"{"connection": "goaway", "reason": "ServiceUnavailable"}"#).reason == .serviceUnavailable)
    }

    @Test func aServerHoldsAtMostItsBoundOfFaults() throws {
        let faults = ProviderFaults()
        for _ in 0..<ProviderFault.maximumCount { _ = try add(faults, #"{"reason": "Shutdown"}"#) }
        #expect(throws: APIError.self) { try add(faults, #"{"reason": "Shutdown"}"#) }
        #expect(faults.removeAll() == ProviderFault.maximumCount)
        #expect(faults.isEmpty)
    }
}
