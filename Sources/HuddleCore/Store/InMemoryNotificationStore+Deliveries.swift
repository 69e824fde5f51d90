public import Foundation

extension InMemoryNotificationStore {
    public func deliver(_ request: NotificationRequest, app: String, at date: Date, device token: String) throws -> DeviceChange {
        guard let device = devices[token] else { throw StoreError(.notFound, "unknown device \(token)") }
        guard let appRecord = device.apps[app] else { throw StoreError(.notFound, "device \(token) has no app \(app)") }
        let mark = device.settings.mark(for: request, app: app, appSettings: appRecord.settings, capabilities: appRecord.capabilities, at: date)
        let number = record(token, .delivered, topic: app, identifiers: [request.identifier])
        let notification = DeliveredNotification(app: app, request: request, stamp: DeliveryStamp(date: date, sequence: number), mark: mark)
        devices[token]?.set(notification, app: app, key: ExactString(request.identifier))
        return DeviceChange(number: number, kind: .delivered(notification))
    }

    public func holdingDevices(knowingSettingsAsOf known: [String: UInt64]) -> [HoldingDevice] {
        devices.values.filter { $0.heldCount > 0 }.compactMap { device in
            let held = device.notifications.values.flatMap(\.values).filter { $0.mark == .held }
            return held.map(\.date).min().map { oldest in
                HoldingDevice(
                    token: device.record.token, oldestHeld: oldest, lastChange: device.lastChange,
                    settings: known[device.record.token] == device.lastChange ? nil : device.settings)
            }
        }.sorted { $0.token < $1.token }
    }

    public func deliverSummaries(device token: String, dueBy date: Date?) throws -> [DeviceChange] {
        guard let device = devices[token] else { throw StoreError(.notFound, "unknown device \(token)") }
        let held = device.notifications.values.flatMap(\.values).filter { $0.mark == .held }.map { notification in
            (notification: notification.heldInSummary, arrived: notification.date)
        }
        var changes: [DeviceChange] = []
        for summary in ScheduledSummary.due(held, settings: device.settings, dueBy: date) {
            for (app, identifier) in summary.notifications {
                guard let notification = devices[token]?.notifications[app]?[ExactString(identifier)] else { continue }
                devices[token]?.set(notification.marked(.shown), app: app, key: ExactString(identifier))
            }
            devices[token]?.summary = summary
            changes.append(DeviceChange(number: record(token, .summary, topic: "", summary: summary), kind: .summary(summary)))
        }
        return changes
    }

    public func recordEvent(_ event: DeviceEvent, device token: String) throws -> DeviceChange {
        guard let device = devices[token] else { throw StoreError(.notFound, "unknown device \(token)") }
        guard device.apps[event.app] != nil else { throw StoreError(.notFound, "device \(token) has no app \(event.app)") }
        let number = record(token, .event, topic: event.app, event: event)
        return DeviceChange(number: number, kind: .event(event))
    }

    public func deleteNotifications(app: String, identifiers: [String], deliveredThrough: UInt64?, device token: String) -> DeviceChange? {
        var removed: [String] = []
        for identifier in identifiers {
            guard let stored = devices[token]?.notifications[app]?[ExactString(identifier)],
                stored.stamp.sequence <= deliveredThrough ?? .max
            else { continue }
            devices[token]?.set(nil, app: app, key: ExactString(identifier))
            removed.append(identifier)
        }
        guard !removed.isEmpty else { return nil }
        let number = record(token, .removed, topic: app, identifiers: removed)
        return DeviceChange(number: number, kind: .removed(app: app, identifiers: removed))
    }

    public func trimNotifications(app: String, device token: String, limit: Int) -> DeviceChange? {
        guard let notifications = devices[token]?.notifications[app], notifications.count > limit else { return nil }
        let leaving = Self.oldest(NotificationLimit.removedByTrimming(count: notifications.count, limit: limit), of: notifications.values)
        return deleteNotifications(app: app, identifiers: leaving.map(\.identifier), deliveredThrough: nil, device: token)
    }

    /// The `count` first delivered of `notifications`, oldest first, without sorting them all: a trim takes a
    /// hundredth of an app's notifications, and an app at its limit is trimmed every hundredth delivery.
    static func oldest(_ count: Int, of notifications: some Collection<DeliveredNotification>) -> [DeliveredNotification] {
        guard count > 0 else { return [] }
        var oldest: [DeliveredNotification] = []
        oldest.reserveCapacity(count + 1)
        for notification in notifications {
            let sequence = notification.stamp.sequence
            if oldest.count == count, let newest = oldest.last, sequence >= newest.stamp.sequence { continue }
            // Where it goes among those kept so far, found by halving.
            var low = 0
            var high = oldest.count
            while low < high {
                let middle = (low + high) / 2
                if oldest[middle].stamp.sequence < sequence { low = middle + 1 } else { high = middle }
            }
            oldest.insert(notification, at: low)
            if oldest.count > count { oldest.removeLast() }
        }
        return oldest
    }

    /// Each write in turn, in one step of the actor: nothing else runs between them. As the databases do,
    /// each app the batch added notifications to (a replacement adds none) is trimmed once, after the batch's
    /// writes; the trim is a change of the app's last delivery in the batch.
    public func commit(_ writes: [NotificationWrite]) -> [Result<[DeviceChange], StoreError>] {
        var added: Set<DeviceApp> = []
        var results = writes.map { write -> Result<[DeviceChange], StoreError> in
            do {
                return .success(try apply(write, added: &added))
            } catch {
                return .failure(error as? StoreError ?? StoreError(.corrupt, "\(error)"))
            }
        }
        for delivery in NotificationLimit.lastDeliveryPerApp(writes.storedDeliveries(results)) where added.contains(delivery.app) {
            if let trim = trimNotifications(app: delivery.app.topic, device: delivery.app.device, limit: delivery.limit) {
                results[delivery.position] = results[delivery.position].map { $0 + [trim] }
            }
        }
        return results
    }

    /// One write of a batch; `added` gains the app of a delivery that added a notification.
    private func apply(_ write: NotificationWrite, added: inout Set<DeviceApp>) throws -> [DeviceChange] {
        switch write {
        case .deliver(let request, let app, let date, let token, _):
            let before = devices[token]?.notifications[app]?.count ?? 0
            let change = try deliver(request, app: app, at: date, device: token)
            if devices[token]?.notifications[app]?.count ?? 0 > before { added.insert(DeviceApp(device: token, topic: app)) }
            return [change]
        case .remove(let app, let identifiers, let deliveredThrough, let token):
            return [deleteNotifications(app: app, identifiers: identifiers, deliveredThrough: deliveredThrough, device: token)].compactMap { $0 }
        case .record(let event, let token):
            return [try recordEvent(event, device: token)]
        case .receipted(let write, let receipt):
            try write.checkTakesReceipt()
            // Committed before with its receipt: not again.
            guard receipts[receipt.id] == nil else { return [] }
            let changes = try apply(write, added: &added)
            receipts[receipt.id] = receipt
            return changes
        }
    }

    public func saveReceipts(_ receipts: [DeliveryReceipt]) {
        for receipt in receipts { self.receipts[receipt.id] = receipt }
    }

    public func receipts(ids: [String], keptSince: Date) -> [DeliveryReceipt] {
        Set(ids).compactMap { receipts[$0] }.filter { $0.createdAt >= keptSince }
    }

    public func forgetReceipts(createdBefore date: Date, keepingAtMost count: Int) -> Int {
        let before = receipts.count
        receipts = receipts.filter { $0.value.createdAt >= date }
        if receipts.count > count {
            for receipt in receipts.values.sorted(by: { $0.createdAt < $1.createdAt }).prefix(receipts.count - max(count, 0)) {
                receipts[receipt.id] = nil
            }
        }
        return before - receipts.count
    }

    public func snapshot(device token: String) -> DeviceSnapshot? {
        guard let device = devices[token] else { return nil }
        let notifications = device.notifications.values.flatMap(\.values).sorted { $0.stamp.sequence < $1.stamp.sequence }
        let events = device.journal.compactMap { record in record.event.map { RecordedEvent(number: record.number, event: $0) } }
            .suffix(DeviceEvent.keptPerDevice)
        return DeviceSnapshot(
            device: device.record, apps: apps(device: token), notifications: notifications, lastChange: device.lastChange, events: Array(events),
            activities: device.activities, settings: device.settings, summary: device.summary)
    }

    public func changes(device token: String, after number: UInt64) -> [DeviceChange]? {
        guard let device = devices[token] else { return nil }
        guard number + 1 >= device.oldestKept else { return nil }
        return device.journal.filter { $0.number > number }.map { record in
            record.change(
                notification: record.identifiers.first.flatMap { device.notifications[record.topic]?[ExactString($0)] }, app: device.apps[record.topic],
                activities: device.activities, settings: device.settings)
        }
    }
}
