public import Foundation

/// A device's notifications and events, its scheduled summaries, the batch that commits many pushes at once, and the numbered changes that servers sharing the store follow. One of the protocols ``NotificationStore`` joins.
public protocol DeliveryStore: Sendable {
    /// Stores a delivered notification as the device's next change, replacing one with the same app and
    /// identifier. The notification's stamp is `date` and the change number. Where it goes (shown, held for the
    /// summary, silenced by a Focus: its ``ArrivalMark``) is decided in the same transaction, against the device's
    /// settings and the app's as stored then.
    /// - Returns: the change, `.delivered`.
    /// - Throws: ``StoreError`` `.notFound` for an unknown device or app.
    func deliver(_ request: NotificationRequest, app: String, at date: Date, device token: String) async throws -> DeviceChange
    /// Removes notifications of one app by identifier; unknown identifiers are ignored.
    /// - Parameter deliveredThrough: when given, only notifications delivered at or before this change
    ///   number go: one delivered again since (a reused identifier) stays.
    /// - Returns: the change, `.removed` with the identifiers that went; `nil` when none did.
    func deleteNotifications(
        app: String, identifiers: [String], deliveredThrough: UInt64?, device token: String
    ) async throws -> DeviceChange?
    /// The devices holding notifications for a scheduled summary, each with the arrival of its oldest held
    /// notification, its last change's number and its settings (what a summary service needs to know when each
    /// device's next summary comes). The settings of a device that `known` names at its last change are not read:
    /// a service asking every second reads settings only when they may have changed.
    func holdingDevices(knowingSettingsAsOf known: [String: UInt64]) async throws -> [HoldingDevice]
    /// Delivers a device's scheduled summaries due by `date` in one transaction, decided against its settings and
    /// held notifications as stored then (``ScheduledSummary/due(_:settings:dueBy:)``): each summary is one change,
    /// `.summary`, its notifications are held no more, and it is kept as the device's latest. Two servers sharing
    /// the store deliver each summary once: the second finds nothing held.
    /// - Parameter date: `nil` delivers the next summary, whenever it is due.
    /// - Returns: the changes, oldest first; none when nothing was due.
    /// - Throws: ``StoreError`` `.notFound` for an unknown device.
    func deliverSummaries(device token: String, dueBy date: Date?) async throws -> [DeviceChange]
    /// Records a device event (a push with nothing to show) as the device's next change.
    /// - Returns: the change, `.event`.
    /// - Throws: ``StoreError`` `.notFound` for an unknown device or app.
    func recordEvent(_ event: DeviceEvent, device token: String) async throws -> DeviceChange
    /// Removes an app's oldest notifications when it holds more than `limit`, deciding in the transaction
    /// that removes them: down to ``NotificationLimit/keptAfterTrimming(_:)``, those delivered first (by
    /// change number: the order they arrived in, which an index gives without sorting the app's notifications;
    /// a notification's date, which its sender may set, does not make it older).
    /// - Returns: the change, `.removed` with the identifiers that went, first delivered first; `nil` when
    ///   the app is within the limit, or the device or app is unknown.
    func trimNotifications(app: String, device token: String, limit: Int) async throws -> DeviceChange?
    /// Commits several deliveries and removals, of any devices, in one transaction: group commit, so that
    /// many pushes share one commit's cost. They are applied in order, as the single calls would apply them.
    /// A delivery that takes its app past its `notificationsPerApp` trims the app
    /// (``trimNotifications(app:device:limit:)``); the trim is one of that delivery's changes.
    ///
    /// A write that fails on its own (an unknown device or app: ``StoreError`` `.notFound`) fails alone; its
    /// result says so and the others are committed.
    /// - Returns: one result per write, in order: the changes it made, in number order (none for a removal
    ///   of nothing).
    /// - Throws: when the transaction as a whole failed; none of the writes is stored then.
    func commit(_ writes: [NotificationWrite]) async throws -> [Result<[DeviceChange], StoreError>]
    /// A device with its apps and notifications, as of one change; `nil` for an unknown device.
    func snapshot(device token: String) async throws -> DeviceSnapshot?
    /// The device's changes numbered above `number`, oldest first and without gaps.
    /// - Returns: `nil` when some of them are no longer kept (the store keeps the recent ones only), or
    ///   the device is unknown: read a new ``snapshot(device:)`` then.
    func changes(device token: String, after number: UInt64) async throws -> [DeviceChange]?
    /// Notices of changes that other processes commit, for a store that several servers share; `nil` for
    /// a store only this process writes (every change then passes through this process's own calls).
    func noticesFromOtherServers() -> AsyncStream<ChangeNotice>?

    /// Stores receipts of messages that stored nothing (refused, or shown nowhere), each under its unique id; a
    /// receipt of a stored message comes with its write (``NotificationWrite/receipted(_:receipt:)``).
    func saveReceipts(_ receipts: [DeliveryReceipt]) async throws
    /// The receipts among `ids` created at or after `keptSince`, in any order; unknown ids are left out.
    func receipts(ids: [String], keptSince: Date) async throws -> [DeliveryReceipt]
    /// Deletes the receipts created before `date`, then, of those left, the oldest past `count`.
    /// - Returns: how many went.
    @discardableResult
    func forgetReceipts(createdBefore date: Date, keepingAtMost count: Int) async throws -> Int
}

extension DeliveryStore {
    public func noticesFromOtherServers() -> AsyncStream<ChangeNotice>? { nil }

    /// Removes notifications of one app by identifier, whenever they were delivered.
    public func deleteNotifications(app: String, identifiers: [String], device token: String) async throws -> DeviceChange? {
        try await deleteNotifications(app: app, identifiers: identifiers, deliveredThrough: nil, device: token)
    }

    /// Commits each write on its own, in order, with ``deliver(_:app:at:device:)`` and
    /// ``deleteNotifications(app:identifiers:deliveredThrough:device:)``, then trims each app delivered to
    /// once (``trimNotifications(app:device:limit:)``), as ``commit(_:)`` does; `.notFound` is the write's
    /// result, any other error stops the rest.
    public func commitEach(_ writes: [NotificationWrite]) async throws -> [Result<[DeviceChange], StoreError>] {
        var results: [Result<[DeviceChange], StoreError>] = []
        results.reserveCapacity(writes.count)
        for write in writes {
            do {
                switch write {
                case .deliver(let request, let app, let date, let token, _):
                    results.append(.success([try await deliver(request, app: app, at: date, device: token)]))
                case .remove(let app, let identifiers, let deliveredThrough, let token):
                    let removed = try await deleteNotifications(
                        app: app, identifiers: identifiers, deliveredThrough: deliveredThrough, device: token)
                    results.append(.success(removed.map { [$0] } ?? []))
                case .record(let event, let token):
                    results.append(.success([try await recordEvent(event, device: token)]))
                case .receipted(let write, let receipt):
                    // Only stores without transactions of their own commit one at a time; each database stores a
                    // receipted write in one transaction.
                    try write.checkTakesReceipt()
                    let result = try await commitEach([write])[0]
                    if case .success = result { try await saveReceipts([receipt]) }
                    results.append(result)
                }
            } catch let error as StoreError where error.code == .notFound {
                results.append(.failure(error))
            }
        }
        for delivery in NotificationLimit.lastDeliveryPerApp(writes.storedDeliveries(results)) {
            if let trim = try await trimNotifications(app: delivery.app.topic, device: delivery.app.device, limit: delivery.limit) {
                results[delivery.position] = results[delivery.position].map { $0 + [trim] }
            }
        }
        return results
    }
}
