public import Foundation

/// Where a server keeps devices, their apps and their notifications, durably.
///
/// Every backend (the in-memory actor, SQLite, PostgreSQL) passes one conformance suite
/// (`HuddleTestSupport.StoreConformance`). A write returns only once it is committed: the server answers
/// a push with 200 after ``deliver(_:app:at:device:)`` returns.
///
/// Each write to a device's center is also recorded as a numbered ``DeviceChange`` in the same
/// transaction. Servers sharing a store follow those numbers: a server loads a ``DeviceSnapshot``, then
/// applies later changes in order, reading any it missed with ``changes(device:after:)``.
///
/// It joins four protocols a reader can hold in mind one at a time: ``DeviceStore`` (devices, apps, settings),
/// ``DeliveryStore`` (notifications, summaries, the batch commit, the change journal), ``BroadcastStore`` (Live
/// Activities, broadcast channels, FCM topics) and ``CredentialStore`` (signing keys, service accounts).
public protocol NotificationStore: DeviceStore, DeliveryStore, BroadcastStore, CredentialStore {}

extension AppRecord {
    /// What storing this app over `stored` changes among its localization files: the paths to delete and the
    /// files to write (new or changed), each in path order. Files that stay as they were are not rewritten.
    public func localizationChanges(from stored: AppRecord?) -> (deleted: [String], written: [(path: String, data: Data)]) {
        let before = stored?.localizationFiles ?? [:]
        let deleted = before.keys.filter { localizationFiles[$0] == nil }.sorted()
        let written = localizationFiles.filter { before[$0.key] != $0.value }.sorted { $0.key < $1.key }.map { (path: $0.key, data: $0.value) }
        return (deleted, written)
    }
}

/// How ``NotificationStore/updateApp(topic:device:maximumApps:_:)`` changes an app: from the app as stored
/// (`nil` when not installed) to the app to store; it throws to store nothing.
public typealias AppUpdate = @Sendable (AppRecord?) throws -> AppRecord

/// What must hold of an app for ``NotificationStore/deleteApp(topic:device:precondition:)`` to remove it.
public typealias AppPrecondition = @Sendable (AppRecord) throws -> Void

/// What ``NotificationStore/updateActivities(device:app:_:)`` runs in its transaction: changes the device's
/// activities, given the app's declared types, and says what the device did with a push (`nil` for a change
/// no push made, a person's dismissal).
public typealias ActivitiesUpdate = @Sendable (_ activities: inout [LiveActivity], _ declarations: ActivityDeclarations) throws -> DeviceEvent?

/// How ``NotificationStore/updateDeviceSettings(device:_:)`` changes a device's settings: from them as stored to
/// the settings to store; it throws to store nothing.
public typealias DeviceSettingsUpdate = @Sendable (DeviceSettings) throws -> DeviceSettings

/// Carries what an ``AppUpdate`` threw through a store's transaction (which rolls back, and whose own error
/// mapping lets it pass) back to the caller, who gets the update's own error.
public struct UpdateRefusal: Error {
    public let error: any Error

    /// `update` applied to the app of `topic` as stored (`nil` when not installed); an update that gives
    /// another app's record is refused.
    public static func updated(_ app: AppRecord?, by update: AppUpdate, topic: String) throws -> AppRecord {
        var updated = try update(app)
        guard updated.topic == topic else { throw StoreError(.conflict, "an update of app \(topic) gave app \(updated.topic)") }
        // An app's registration token is the store's to give, once: the one it has stays, a new app gets one.
        updated.firebase.registrationToken = app?.firebase.registrationToken ?? FirebaseInstallation.newRegistrationToken()
        return updated
    }

    /// ``updated(_:by:topic:)`` inside a database transaction: the update's own error wrapped, so that the
    /// store's error mapping lets it through.
    public static func apply(_ update: AppUpdate, to app: AppRecord?, topic: String) throws -> AppRecord {
        do {
            return try updated(app, by: update, topic: topic)
        } catch let error as StoreError {
            throw error
        } catch {
            throw UpdateRefusal(error: error)
        }
    }

    /// Refuses a new app when the device has `maximum` already (`count` is read in the same transaction).
    public static func checkRoom(count: Int, maximum: Int) throws {
        guard count < maximum else { throw tooManyApps(count) }
    }

    /// What `transaction` returns; an update's error comes out unwrapped.
    public static func unwrapping<Value>(_ transaction: () async throws -> Value) async throws -> Value {
        do {
            return try await transaction()
        } catch let refusal as UpdateRefusal {
            throw refusal.error
        }
    }


    /// `precondition` checked against the app as stored, its error wrapped.
    public static func check(_ precondition: AppPrecondition?, _ app: AppRecord) throws {
        do {
            try precondition?(app)
        } catch {
            throw UpdateRefusal(error: error)
        }
    }

    /// `update` run on the activities as stored, its error wrapped.
    public static func check(
        _ update: ActivitiesUpdate, _ activities: inout [LiveActivity], _ declarations: ActivityDeclarations
    ) throws -> DeviceEvent? {
        do {
            return try update(&activities, declarations)
        } catch {
            throw UpdateRefusal(error: error)
        }
    }

    /// The error of a new app past the limit, in every store's words.
    public static func tooManyApps(_ count: Int) -> StoreError {
        StoreError(.conflict, "the device has \(count) apps, the most one device may install (--max-apps-per-device)")
    }

    /// Refuses a subscription under `project` of an app registered with another Firebase project (FCM's sender ID
    /// mismatch), read in the subscription's transaction.
    public static func checkProject(_ installation: FirebaseInstallation, subscribingUnder project: String) throws(StoreError) {
        guard installation.accepts(project: project) else {
            throw StoreError(.conflict, "the registration token belongs to Firebase project \(installation.project ?? ""), not \(project)")
        }
    }

    /// A registration token's topics past the limit (FCM's TOO_MANY_TOPICS), in every store's words.
    public static func tooManyTopics(_ count: Int) -> StoreError {
        StoreError(.full, "the registration token is subscribed to \(count) topics, the most one may be")
    }

    /// The error of a new device past the limit, in every store's words.

    public static func tooManyDevices(_ count: Int) -> StoreError {
        StoreError(.full, "this server has \(count) devices, the most it keeps (--max-devices)")
    }

    /// The error of a new broadcast channel past the limit, in every store's words.
    public static func tooManyChannels(_ count: Int, app: String) -> StoreError {
        StoreError(.full, "\(app) has \(count) broadcast channels in this environment, the most it may have; delete one first")
    }
}

/// A write to a device's notifications that stores commit in groups (``NotificationStore/commit(_:)``).
public enum NotificationWrite: Sendable {
    /// ``NotificationStore/deliver(_:app:at:device:)``, then, past `notificationsPerApp`, the app trimmed
    /// (``NotificationStore/trimNotifications(app:device:limit:)``) in the same transaction.
    case deliver(NotificationRequest, app: String, at: Date, device: String, notificationsPerApp: Int = .max)
    /// ``NotificationStore/deleteNotifications(app:identifiers:deliveredThrough:device:)``.
    case remove(app: String, identifiers: [String], deliveredThrough: UInt64? = nil, device: String)
    /// ``NotificationStore/recordEvent(_:device:)``.
    case record(DeviceEvent, device: String)
    /// A write and, in its transaction when it succeeds, the receipt of the message it stores (an Expo ticket's):
    /// a receipt never says a message arrived that was not stored, and a stored one always has its receipt. Committed
    /// again (a retry), it changes nothing: the receipt, found in the transaction, says the write is stored.
    indirect case receipted(NotificationWrite, receipt: DeliveryReceipt)

    /// The device written to.
    public var device: String {
        switch self {
        case .deliver(_, _, _, let device, _), .remove(_, _, _, let device), .record(_, let device): device
        case .receipted(let write, _): write.device
        }
    }

    /// The write without its receipt.
    public var unreceipted: NotificationWrite {
        if case .receipted(let write, _) = self { write.unreceipted } else { self }
    }

    /// Refuses a write that cannot come with a receipt: only a delivery or an event stores a message. Every store
    /// refuses the rest alike, before anything is written.
    public func checkTakesReceipt() throws(StoreError) {
        switch self {
        case .deliver, .record: return
        case .remove, .receipted: throw Self.receiptRefused(on: self)
        }
    }

    /// The refusal of a receipt on a write that stores no message.
    public static func receiptRefused(on write: NotificationWrite) -> StoreError {
        StoreError(.corrupt, "a receipt comes with a delivery or an event, not with \(write)")
    }
}

extension [NotificationWrite] {
    /// The deliveries among these writes that `results` (one per write) say were stored.
    public func storedDeliveries(_ results: [Result<[DeviceChange], StoreError>]) -> [NotificationLimit.StoredDelivery] {
        zip(indices, self).compactMap { position, write in
            guard case .deliver(_, let app, _, let token, let limit) = write.unreceipted, case .success = results[position] else { return nil }
            return NotificationLimit.StoredDelivery(position: position, app: DeviceApp(device: token, topic: app), limit: limit)
        }
    }
}

/// How far an app past its notification limit is trimmed: to a hundredth of the limit below it, so that an
/// app kept at its limit is trimmed once per many deliveries instead of at each one.
public enum NotificationLimit {
    /// The most notifications one trim removes. An app far past its limit (the limit was lowered) comes down
    /// over several deliveries, so that no one transaction, and no one change its streams carry, grows with
    /// how far past it was.
    public static let maximumRemovedByOneTrim = 1_000

    /// How many notifications an app past `limit` keeps.
    public static func keptAfterTrimming(_ limit: Int) -> Int {
        let limit = max(limit, 0)
        return limit - limit / 100
    }

    /// How many of its first-delivered notifications an app holding `count` removes: none within `limit`,
    /// else down to ``keptAfterTrimming(_:)``, at most ``maximumRemovedByOneTrim``.
    public static func removedByTrimming(count: Int, limit: Int) -> Int {
        guard count > limit else { return 0 }
        return min(count - keptAfterTrimming(limit), maximumRemovedByOneTrim)
    }

    /// The apps a batch delivered to, each with its last delivery in the batch: every store trims each app
    /// once, after the batch, and the trim joins that delivery's changes.
    /// - Parameter deliveries: the batch's stored deliveries, in batch order.
    /// - Returns: one entry per app, in batch order.
    public static func lastDeliveryPerApp(_ deliveries: some Sequence<StoredDelivery>) -> [StoredDelivery] {
        var last: [DeviceApp: StoredDelivery] = [:]
        for delivery in deliveries where delivery.limit != .max {
            last[delivery.app] = delivery
        }
        return last.values.sorted { $0.position < $1.position }
    }

    /// A delivery a batch stored: its position in the batch, its app and the app's limit.
    public struct StoredDelivery: Sendable {
        public var position: Int
        public var app: DeviceApp
        public var limit: Int

        public init(position: Int, app: DeviceApp, limit: Int) {
            self.position = position
            self.app = app
            self.limit = limit
        }
    }
}

/// One app on one device.
public struct DeviceApp: Hashable, Sendable {
    public var device: String
    public var topic: String

    public init(device: String, topic: String) {
        self.device = device
        self.topic = topic
    }
}

/// A store operation that failed for a reason callers handle.
///
/// Its ``message`` is Huddle's own words, fit to answer a client with; what the database itself said (its
/// message, SQLSTATE or result code, which may name tables, columns and values) is the ``detail``, for the
/// log only.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        case notFound
        case conflict
        case corrupt
        /// The store cannot be reached (a database server down or refusing connections).
        case unavailable
        /// The store holds the most it may of something (devices).
        case full
    }

    public var code: Code
    public var message: String
    public var detail: String?

    public init(_ code: Code, _ message: String, detail: String? = nil) {
        self.code = code
        self.message = message
        self.detail = detail
    }

    /// The message with the database's own words, for logs.
    public var description: String {
        detail.map { "\(message): \($0)" } ?? message
    }
}
