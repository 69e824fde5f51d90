import Foundation
@testable import HuddleCore
import HuddleTestSupport
import Testing

@Suite struct InMemoryStoreTests {
    @Test(arguments: StoreConformance.checks)
    func conforms(_ check: String) async throws {
        try await StoreConformance.check(check, store: InMemoryNotificationStore())
    }

    @Test func forgetsOldChanges() async throws {
        try await StoreConformance.checkRetention(store: InMemoryNotificationStore(retention: ChangeRetention(changesPerDevice: 10)))
    }

    /// A trim's selection of the first delivered, in any order they are held in, agrees with sorting them all.
    @Test func theOldestAreTheFirstDelivered() {
        let notifications = (0..<1_000).shuffled().map { sequence in
            DeliveredNotification(
                app: "com.example.app", request: NotificationRequest(identifier: "n\(sequence)", content: NotificationContent()),
                stamp: DeliveryStamp(date: Date(timeIntervalSince1970: 0), sequence: UInt64(sequence)))
        }
        for count in [0, 1, 7, 101, 999, 1_000, 1_200] {
            let oldest = InMemoryNotificationStore.oldest(count, of: notifications).map(\.stamp.sequence)
            #expect(oldest == (0..<UInt64(min(count, 1_000))).map { $0 }, "\(count)")
        }
    }
}
