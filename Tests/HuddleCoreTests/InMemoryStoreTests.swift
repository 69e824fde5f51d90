import HuddleCore
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
}
