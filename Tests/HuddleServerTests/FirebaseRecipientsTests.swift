import Foundation
import HuddleCore
@testable import HuddleServer
import Testing

/// The apps FCM registration tokens and installation IDs name, at their own level: found from the store, then from
/// the places remembered and the device's session, and no longer once the app went (or came back with a new token).
@Suite struct FirebaseRecipientsTests {
    @Test func aTokenAndItsInstallationIDNameTheirAppUntilItGoes() async throws {
        let store = InMemoryNotificationStore()
        try await store.createDevice(DeviceRecord(token: "dev", secretHash: "h", name: "Pixel", createdAt: Date(), kind: .android(version: 15)))
        _ = try await store.saveApp(AppRecord(topic: "com.example.chat"), device: "dev")
        let token = try #require(await store.apps(device: "dev").first?.firebase.registrationToken)
        let id = String(try #require(FirebaseInstallation.installationID(of: token)))
        let centers = DeviceCenters(store: store)
        let recipients = FirebaseRecipients(centers: centers, store: store)

        // Read from the store the first time, from the places remembered the second: the same app each time.
        for _ in 0..<2 {
            let byToken = try #require(try await recipients.recipient(registrationToken: token))
            #expect(byToken.app == "com.example.chat" && byToken.device.token == "dev" && byToken.installation.registrationToken == token)
            #expect(try await recipients.recipient(installationID: id)?.app == "com.example.chat")
        }
        #expect(try await recipients.recipient(registrationToken: "no:such-token") == nil)
        #expect(try await recipients.recipient(installationID: "nosuchid") == nil)

        // Removed: neither names it, though both were remembered.
        let session = try #require(try await centers.session(for: "dev"))
        #expect(try await session.deleteApp(topic: "com.example.chat"))
        #expect(try await recipients.recipient(registrationToken: token) == nil)
        #expect(try await recipients.recipient(installationID: id) == nil)

        // Installed again, with a new token: the old one still names nothing, the new one the app.
        _ = try await session.updateApp(topic: "com.example.chat", maximumApps: 10) { _ in AppRecord(topic: "com.example.chat") }
        let newToken = try #require(session.firebaseInstallation(of: "com.example.chat")?.registrationToken)
        #expect(newToken != token)
        #expect(try await recipients.recipient(registrationToken: token) == nil)
        #expect(try await recipients.recipient(registrationToken: newToken)?.app == "com.example.chat")
    }
}
