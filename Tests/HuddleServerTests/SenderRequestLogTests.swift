import Foundation
import HuddleAPNs
import HuddleCore
@testable import HuddleServer
import HuddleTestSupport
import Logging
import ServiceLifecycle
import Testing

/// The request inspector's history: numbered in order, bounded by count and by bytes (oldest out first),
/// filtered, and waking its live viewers.
@Suite struct SenderRequestLogTests {
    static func record(device: String = "ab", topic: String = "com.example.app", status: Int = 200, reason: String? = nil, payloadBytes: Int = 0)
        -> SenderRequestRecord
    {
        var record = SenderRequestRecord(
            receivedAt: Date(timeIntervalSince1970: 1_800_000_000), httpVersion: "HTTP/2", tls: false, method: "POST",
            path: "/3/device/\(device)", headers: [("apns-topic", topic)])
        record.deviceToken = device
        record.status = status
        record.reason = reason
        record.payload = Array(repeating: UInt8(ascii: "x"), count: payloadBytes)
        return record
    }

    @Test func keepsTheLastRequestsByCountNumberedInOrder() {
        let log = SenderRequestLog(configuration: .init(maximumRecords: 3, maximumBytes: 1 << 20))
        for _ in 0..<5 { log.record(Self.record()) }
        #expect(log.records(.init(), limit: 10).map(\.id) == [5, 4, 3])
        #expect(log.size.records == 3)
        #expect(log.record(id: 2) == nil)
        #expect(log.record(id: 4)?.id == 4)
        #expect(log.record(id: 6) == nil)
    }

    @Test func keepsWithinItsBytesButAlwaysTheNewest() {
        let log = SenderRequestLog(configuration: .init(maximumRecords: 100, maximumBytes: 10_000))
        for _ in 0..<10 { log.record(Self.record(payloadBytes: 3_000)) }
        #expect(log.size.records == 3)  // about 3,300 bytes each
        #expect(log.size.bytes <= 10_000)
        // One record larger than the whole limit is still kept, alone.
        log.record(Self.record(payloadBytes: 20_000))
        #expect(log.records(.init(), limit: 10).map(\.id) == [11])
    }

    @Test func filtersByDeviceTopicStatusReasonTimeAndNumber() {
        let log = SenderRequestLog()
        log.record(Self.record(device: "aa"))
        log.record(Self.record(device: "bb", status: 400, reason: "BadDeviceToken"))
        log.record(Self.record(device: "aa", topic: "com.example.other", status: 403, reason: "InvalidProviderToken"))
        #expect(log.records(.init(device: "aa"), limit: 10).map(\.id) == [3, 1])
        #expect(log.records(.init(topic: "com.example.other"), limit: 10).map(\.id) == [3])
        #expect(log.records(.init(status: 400), limit: 10).map(\.id) == [2])
        #expect(log.records(.init(reason: "InvalidProviderToken"), limit: 10).map(\.id) == [3])
        #expect(log.records(.init(after: 1), limit: 10).map(\.id) == [3, 2])
        #expect(log.records(.init(since: Date(timeIntervalSince1970: 1_900_000_000)), limit: 10).isEmpty)
        #expect(log.records(.init(), limit: 2).map(\.id) == [3, 2])
    }

    @Test func aPollerWithLimitGetsTheRequestsJustAfterItsNumber() {
        let log = SenderRequestLog()
        for _ in 0..<7 { log.record(Self.record()) }
        // Newest first as every list, but the window next to `after`: polling on from 4 then loses nothing.
        #expect(log.records(.init(after: 1), limit: 3).map(\.id) == [4, 3, 2])
        #expect(log.records(.init(after: 4), limit: 3).map(\.id) == [7, 6, 5])
        #expect(log.records(.init(after: 7), limit: 3).isEmpty)
        #expect(log.records(.init(after: 900), limit: 3).isEmpty)
    }

    @Test func aViewerReadsOnFromItsPositionOldestFirstAndSkipsNothing() {
        let log = SenderRequestLog()
        for _ in 0..<7 { log.record(Self.record()) }
        // More waiting than one take: the rest comes next time, none skipped.
        let first = log.records(after: 2, admittedBy: .init(), limit: 3)
        #expect(first.records.map(\.id) == [3, 4, 5])
        #expect(first.position == 5)
        let second = log.records(after: first.position, admittedBy: .init(), limit: 3)
        #expect(second.records.map(\.id) == [6, 7])
        let third = log.records(after: second.position, admittedBy: .init(), limit: 3)
        #expect(third.records.isEmpty && third.position == 7)
    }

    @Test func aViewerWhoseFilterAdmitsNothingStillMovesOn() {
        let log = SenderRequestLog()
        for _ in 0..<5 { log.record(Self.record(device: "aa")) }
        // Looked at once: the next read starts after them, instead of looking at them all again.
        let unmatched = log.records(after: 0, admittedBy: .init(device: "bb"), limit: 10)
        #expect(unmatched.records.isEmpty && unmatched.position == 5)
        log.record(Self.record(device: "bb"))
        #expect(log.records(after: 5, admittedBy: .init(device: "bb"), limit: 10).records.map(\.id) == [6])
    }

    @Test func aViewerBehindTheHistoryOrFromAnotherNumberingReadsWhatIsKept() {
        let log = SenderRequestLog(configuration: .init(maximumRecords: 3, maximumBytes: 1 << 20))
        for _ in 0..<5 { log.record(Self.record()) }
        #expect(log.records(after: 1, admittedBy: .init(), limit: 10).records.map(\.id) == [3, 4, 5])
        // A number this server has not reached yet: the viewer's last event came from before a restart.
        #expect(log.records(after: 900, admittedBy: .init(), limit: 10).records.map(\.id) == [3, 4, 5])
    }

    @Test(.timeLimit(.minutes(1))) func wakesItsViewersAtOnceThenForEachRecordAndForgetsThemWhenTheyGo() async {
        let log = SenderRequestLog()
        var wakeUps: AsyncStream<Void>.Iterator? = log.wakeUps().makeAsyncIterator()
        #expect(log.viewerCount == 1)
        // The first comes before any request, so that a resuming viewer reads what waits for it.
        #expect(await wakeUps?.next() != nil)
        #expect(log.lastID == 0)
        log.record(Self.record())
        log.record(Self.record())
        // Two records not yet taken are one wake-up.
        #expect(await wakeUps?.next() != nil)
        log.record(Self.record())
        #expect(await wakeUps?.next() != nil)
        wakeUps = nil
        #expect(log.viewerCount == 0)
    }

    @Test(.timeLimit(.minutes(1))) func wakesItsViewersForHeartbeatsWhileNothingHappens() async {
        let log = SenderRequestLog()
        var wakeUps = log.wakeUps().makeAsyncIterator()
        #expect(await wakeUps.next() != nil)
        // No record: each heartbeat wakes it.
        for _ in 0..<3 {
            log.heartbeat()
            #expect(await wakeUps.next() != nil)
        }
        #expect(log.lastID == 0)
    }

    /// The heartbeat service beats at each interval of its clock, and stops at graceful shutdown.
    @Test(.timeLimit(.minutes(1))) func theHeartbeatBeatsAtEachIntervalOfItsClockAndStopsAtShutdown() async throws {
        let clock = ManualClock()
        let beats = Observed(0)
        let heartbeat = StreamHeartbeat(interval: .seconds(15), clock: clock, beats: [{ beats.update { $0 += 1 } }])
        let group = ServiceGroup(configuration: .init(services: [.init(service: heartbeat)], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            #expect(await clock.sleepers.wait { $0 == 1 })
            clock.advance(by: .seconds(14))
            #expect(beats.value == 0)
            clock.advance(by: .seconds(1))
            #expect(await beats.wait { $0 == 1 })
            #expect(await clock.sleepers.wait { $0 == 1 })
            clock.advance(by: .seconds(15))
            #expect(await beats.wait { $0 == 2 })
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(clock.sleepers.value == 0)
        #expect(beats.value == 2)
    }

    @Test func itsJSONNeverHoldsTheProviderToken() {
        var record = Self.record(payloadBytes: 0)
        record.tokenKeyID = "ABC123DEFG"
        record.tokenIssuer = "DEF123GHIJ"
        record.tokenIssuedAt = Date(timeIntervalSince1970: 1_799_999_000)
        record.payload = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
        let json = record.json(now: Date(timeIntervalSince1970: 1_800_000_000)).jsonText()
        #expect(json.contains(#""providerToken":{"keyID":"ABC123DEFG","teamID":"DEF123GHIJ","ageSeconds":1000}"#))
        #expect(json.contains(#""payload":{"aps":{"alert":"hi"}}"#))
        record.payload = [0xFF, 0x00]
        #expect(record.json(now: Date()).jsonText().contains(#""payloadText""#))
    }
}
