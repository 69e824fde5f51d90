import Foundation
import HuddleCore
import Testing

/// What every store does for delivery receipts (issue 59, Expo's): a receipt committed with the write that stored its
/// message or not at all, found by id by any server sharing the store, and forgotten by age.
extension StoreConformance {
    static func receipt(_ id: String, at date: Date = start, error: String? = nil) -> DeliveryReceipt {
        DeliveryReceipt(id: id, createdAt: date, error: error, message: error.map { "because \($0)" })
    }

    static let receiptChecks: [String: Check] = [
        "receipts are found by id, within their age, and forgotten by age": { store in
            try await store.saveReceipts([receipt("old", at: start), receipt("new", at: start.addingTimeInterval(3600), error: "DeviceNotRegistered")])
            let found = try await store.receipts(ids: ["new", "old", "unknown", "new"], keptSince: start).sorted { $0.id < $1.id }
            #expect(found == [receipt("new", at: start.addingTimeInterval(3600), error: "DeviceNotRegistered"), receipt("old", at: start)])
            #expect(try await store.receipts(ids: ["old", "new"], keptSince: start.addingTimeInterval(1)).map(\.id) == ["new"])
            #expect(try await store.receipts(ids: [], keptSince: start).isEmpty)
            #expect(try await store.forgetReceipts(createdBefore: start.addingTimeInterval(1), keepingAtMost: 10) == 1)
            #expect(try await store.receipts(ids: ["old", "new"], keptSince: start).map(\.id) == ["new"])
        },
        "a receipted write committed again (a retry) is stored once": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            let event = DeviceEvent(app: "com.example.app", pushType: "fcm", messageID: "e", date: start, priority: 5, action: "kept", payload: [:])
            let writes: [NotificationWrite] = [
                .receipted(.deliver(request("n1"), app: "com.example.app", at: start, device: token), receipt: receipt("r1")),
                .receipted(.record(event, device: token), receipt: receipt("r2")),
            ]
            #expect(try await store.commit(writes).map { (try? $0.get())?.count } == [1, 1])
            let before = try #require(try await store.snapshot(device: token))
            #expect(try await store.commit(writes).map { (try? $0.get())?.count } == [0, 0])
            let after = try #require(try await store.snapshot(device: token))
            #expect(after.lastChange == before.lastChange && after.events.count == before.events.count)
            #expect(after.notifications.map(\.stamp) == before.notifications.map(\.stamp))
        },
        "past the most receipts kept, the oldest go first": { store in
            try await store.saveReceipts((0..<5).map { receipt("r\($0)", at: start.addingTimeInterval(Double($0))) })
            #expect(try await store.forgetReceipts(createdBefore: start, keepingAtMost: 2) == 3)
            #expect(try await store.receipts(ids: (0..<5).map { "r\($0)" }, keptSince: start).map(\.id).sorted() == ["r3", "r4"])
            #expect(try await store.forgetReceipts(createdBefore: start, keepingAtMost: 2) == 0)
        },
        "a receipted delivery past its app's limit trims the app as a plain one does": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            for index in 0..<3 {
                _ = try await store.commit([
                    .receipted(.deliver(request("n\(index)"), app: "com.example.app", at: start, device: token, notificationsPerApp: 2), receipt: receipt("r\(index)"))
                ])
            }
            #expect(try await store.snapshot(device: token)?.notifications.map(\.request.identifier) == ["n1", "n2"])
            #expect(try await store.receipts(ids: ["r0", "r1", "r2"], keptSince: start).count == 3)
        },
        "a receipt comes with a delivery or an event only": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            let removal = NotificationWrite.remove(app: "com.example.app", identifiers: ["x"], device: token)
            // Refused as the write's failure or the whole commit's, as each store reports a caller's mistake.
            var refused = true
            do {
                if case .success = try await store.commit([.receipted(removal, receipt: receipt("r"))])[0] { refused = false }
            } catch {}
            #expect(refused)
            #expect(try await store.receipts(ids: ["r"], keptSince: start).isEmpty)
        },
        "a receipted delivery and event commit their receipts, and a refused one commits none": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            let event = DeviceEvent(app: "com.example.app", pushType: "fcm", messageID: "e", date: start, priority: 5, action: "kept", payload: [:])
            let results = try await store.commit([
                .receipted(.deliver(request("n1"), app: "com.example.app", at: start, device: token), receipt: receipt("r1")),
                .receipted(.record(event, device: token), receipt: receipt("r2")),
                .receipted(.deliver(request("n2"), app: "com.example.gone", at: start, device: token), receipt: receipt("r3")),
                .receipted(.record(event, device: String(repeating: "cd", count: 32)), receipt: receipt("r4")),
            ])
            #expect(results.map { (try? $0.get())?.count } == [1, 1, nil, nil])
            if case .failure(let error) = results[2] { #expect(error.code == .notFound) } else { Issue.record("a delivery to no app was stored") }
            #expect(try await store.receipts(ids: ["r1", "r2", "r3", "r4"], keptSince: start).map(\.id).sorted() == ["r1", "r2"])
            #expect(try await store.snapshot(device: token)?.notifications.map(\.request.identifier) == ["n1"])
        },
        "receipted deliveries at once each keep their notification and their receipt": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let result = try await store.commit([
                            .receipted(.deliver(request("n\(index)"), app: "com.example.app", at: start, device: token), receipt: receipt("r\(index)"))
                        ])
                        _ = try result[0].get()
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await store.receipts(ids: (0..<20).map { "r\($0)" }, keptSince: start).count == 20)
            #expect(try await store.snapshot(device: token)?.notifications.count == 20)
        },
    ]
}
