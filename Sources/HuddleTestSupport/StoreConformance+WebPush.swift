import Foundation
import HuddleCore
import Testing

/// What every store does for Web Push (issue 58): a web app's subscription kept with the app, found by its endpoint ID,
/// replaced by a new one (the old ID then names nothing), gone with its app, and changed in the app's transaction.
extension StoreConformance {
    static let webApp = "web.shop.example"

    static func webPushSubscription(id: String = "sub-1") -> WebPushSubscription {
        WebPushSubscription(
            id: id, origin: "https://shop.example", service: "apple", applicationServerKey: "BKey", privateKey: "private", authSecret: "auth", createdAt: start)
    }

    static let webPushChecks: [String: Check] = [
        "a web app's push subscription is kept with it and found by its endpoint ID": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: webApp, displayName: "Shop", webPush: webPushSubscription()), device: token)
            let recipient = try #require(try await store.webPushRecipient(subscriptionID: "sub-1"))
            #expect(recipient.device.token == token && recipient.app == webApp && recipient.subscription == webPushSubscription())
            #expect(try await store.apps(device: token).first?.webPush == webPushSubscription())
            #expect(try await store.webPushRecipient(subscriptionID: "sub-2") == nil)

            // Ended, it is still found (a push is answered 410); a new one replaces it, and the old ID names nothing.
            var ended = webPushSubscription()
            ended.endedAt = start.addingTimeInterval(60)
            ended.endReason = "unsubscribed"
            ended.online = false
            ended.pending = [
                PendingWebPush(
                    messageID: "m1", receivedAt: start, ttl: 60, urgency: "high", topic: "order-42", encoding: "aesgcm", salt: "c2FsdA",
                    senderKey: "BKey", body: "Ym9keQ")
            ]
            _ = try await store.saveApp(AppRecord(topic: webApp, webPush: ended), device: token)
            #expect(try await store.webPushRecipient(subscriptionID: "sub-1")?.subscription == ended)
            _ = try await store.saveApp(AppRecord(topic: webApp, webPush: webPushSubscription(id: "sub-2")), device: token)
            #expect(try await store.webPushRecipient(subscriptionID: "sub-1") == nil)
            #expect(try await store.webPushRecipient(subscriptionID: "sub-2")?.app == webApp)

            _ = try await store.deleteApp(topic: webApp, device: token)
            #expect(try await store.webPushRecipient(subscriptionID: "sub-2") == nil)
        },
        "a web app's subscription goes with its device": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: webApp, webPush: webPushSubscription()), device: token)
            _ = try await store.deleteDevice(token: token, at: start)
            #expect(try await store.webPushRecipient(subscriptionID: "sub-1") == nil)
        },
        "pushes that show nothing, counted at once, are each counted": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: webApp, webPush: webPushSubscription()), device: token)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        _ = try await store.updateApp(topic: webApp, device: token, maximumApps: 10) { app in
                            var app = try #require(app)
                            app.webPush?.silentPushes += 1
                            return app
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await store.webPushRecipient(subscriptionID: "sub-1")?.subscription.silentPushes == 20)
        },
    ]
}
