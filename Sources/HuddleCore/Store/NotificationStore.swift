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
public protocol NotificationStore: Sendable {
    // MARK: Devices
    /// Creates a device, counting the devices in the same transaction, so that racing registrations
    /// cannot pass `maximumDevices` together.
    /// - Throws: ``StoreError`` `.conflict` when the token exists, `.full` when there are `maximumDevices`.
    func createDevice(_ device: DeviceRecord, maximumDevices: Int) async throws
    func device(token: String) async throws -> DeviceRecord?
    /// How many devices there are.
    func deviceCount() async throws -> Int
    /// The newest devices first, at most `limit` of them (the home page lists them for the admin).
    func devices(newestFirst limit: Int) async throws -> [DeviceRecord]
    /// Removes a device with its apps and notifications, remembering when (`date`, the server's clock), so that pushes
    /// to its token can be answered `Unregistered`; `false` when there was none.
    func deleteDevice(token: String, at date: Date) async throws -> Bool
    /// When a deleted device was removed; `nil` for a token never deleted (or registered again).
    func unregistrationDate(token: String) async throws -> Date?

    // MARK: Apps
    /// Installs or changes an app of a device in one transaction, decided against the app as stored then:
    /// `update` gets it (`nil` when the device does not have it) and gives the app to store. Two changes
    /// of one app at once (two localization files, settings and categories) both stay, whichever commits
    /// first; a new app past `maximumApps` is refused in the same transaction. An app the summary no longer
    /// holds (``DeviceSettings/holds(appSettings:)``) has its held notifications held no more, in it too.
    /// - Returns: the change, `.appSaved`.
    /// - Throws: what `update` throws, as it threw it (nothing is stored then); ``StoreError`` `.notFound`
    ///   for an unknown device, `.conflict` for a new app when the device has `maximumApps`.
    func updateApp(topic: String, device token: String, maximumApps: Int, _ update: AppUpdate) async throws -> DeviceChange
    func apps(device token: String) async throws -> [AppRecord]
    /// Removes an app and its notifications, when `precondition` (given the app as stored, in the same
    /// transaction) does not throw.
    /// - Returns: the change, `.appDeleted`; `nil` when the device had no such app.
    /// - Throws: what `precondition` throws, as it threw it (nothing is removed then).
    func deleteApp(topic: String, device token: String, precondition: AppPrecondition?) async throws -> DeviceChange?

    // MARK: Notifications
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
    /// Changes a device's Live Activities in one transaction, decided against them as stored then (under the
    /// device's lock where servers share the store): `update` gets them with the app's declared types (read
    /// without the app's strings, which can be large), changes them, and gives the event that says what the
    /// device did. When the activities changed, they are one change (`.activities`), and the event, if any, the
    /// next.
    /// - Returns: the changes, in number order.
    /// - Throws: ``StoreError`` `.notFound` for an unknown device or app; what `update` throws, as it threw it
    ///   (nothing is stored then).
    func updateActivities(device token: String, app topic: String, _ update: ActivitiesUpdate) async throws -> [DeviceChange]
    /// Changes the person's settings of a device in one transaction, decided against them as stored then: `update`
    /// gets them and gives the settings to store. Held notifications that no summary holds under the new settings
    /// (``DeviceSettings/holds(appSettings:)``) are held no more, in the same transaction.
    /// - Returns: the change, `.settings`; `nil` when the settings did not change (nothing is recorded then).
    /// - Throws: ``StoreError`` `.notFound` for an unknown device; what `update` throws, as it threw it.
    func updateDeviceSettings(device token: String, _ update: DeviceSettingsUpdate) async throws -> DeviceChange?
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

    // MARK: Following a device
    /// A device with its apps and notifications, as of one change; `nil` for an unknown device.
    func snapshot(device token: String) async throws -> DeviceSnapshot?
    /// The device's changes numbered above `number`, oldest first and without gaps.
    /// - Returns: `nil` when some of them are no longer kept (the store keeps the recent ones only), or
    ///   the device is unknown: read a new ``snapshot(device:)`` then.
    func changes(device token: String, after number: UInt64) async throws -> [DeviceChange]?
    /// Notices of changes that other processes commit, for a store that several servers share; `nil` for
    /// a store only this process writes (every change then passes through this process's own calls).
    func noticesFromOtherServers() -> AsyncStream<ChangeNotice>?

    // MARK: Signing keys
    /// Creates or replaces a signing key.
    func saveSigningKey(_ key: SigningKeyRecord) async throws
    func signingKey(id: String) async throws -> SigningKeyRecord?
    func signingKeys() async throws -> [SigningKeyRecord]
    func deleteSigningKey(id: String) async throws -> Bool

    // MARK: Broadcast channels
    /// Creates a channel, refusing it (`.full`) when its app already has `maximumPerApp` in its environment,
    /// counted in the transaction that inserts it.
    func createChannel(_ channel: BroadcastChannel, maximumPerApp: Int) async throws
    func channel(id: String) async throws -> BroadcastChannel?
    /// The identifiers of an app's channels in one environment, oldest first.
    func channels(app: String, environment: APNsEnvironment) async throws -> [String]
    func deleteChannel(id: String) async throws -> Bool
    /// Keeps `message` as the channel's latest broadcast.
    /// - Returns: false when there is no such channel.
    func storeBroadcast(_ message: StoredBroadcast, channel id: String) async throws -> Bool
    /// The devices of `environment` holding an activity of `app` that listens on `channel` (the fan-out of a
    /// broadcast; each device's update then checks its activities again in its own transaction).
    func devices(listeningOn channel: String, app: String, environment: APNsEnvironment) async throws -> [String]

    // MARK: Firebase Cloud Messaging
    /// Creates or replaces a service account's key.
    func saveServiceAccount(_ account: ServiceAccountRecord) async throws
    func serviceAccount(keyID: String) async throws -> ServiceAccountRecord?
    func serviceAccounts() async throws -> [ServiceAccountRecord]
    func deleteServiceAccount(keyID: String) async throws -> Bool
    /// The app an FCM registration token names, with its device; `nil` for a token no app has.
    func firebaseRecipient(registrationToken: String) async throws -> FirebaseRecipient?
    /// The registration token of the app a Firebase installation ID belongs to (the token's part before its `:`,
    /// ``FirebaseInstallation/installationID(of:)``), in one read; `nil` for an ID no app has. The token then names
    /// the app as any token does (``firebaseRecipient(registrationToken:)``, which a caller may have cached).
    func registrationToken(installationID: String) async throws -> String?
    /// Subscribes a registration token to a topic of a project, counting the token's topics in the same
    /// transaction.
    /// - Returns: false when it was subscribed already.
    /// - Throws: ``StoreError`` `.notFound` for a token no app has, `.conflict` for an app registered with another
    ///   project (``UpdateRefusal/checkProject(_:subscribingUnder:)``), `.full` when it has `maximumTopics`.
    func subscribe(registrationToken: String, project: String, topic: String, at date: Date, maximumTopics: Int) async throws -> Bool
    /// - Returns: false when it was not subscribed.
    func unsubscribe(registrationToken: String, project: String, topic: String) async throws -> Bool
    /// The registration tokens subscribed to any of `topics` in `project`, each with those of `topics` it is
    /// subscribed to (a condition is decided on them), in token order.
    func subscribers(project: String, toAnyOf topics: [String]) async throws -> [(registrationToken: String, topics: Set<String>)]
}

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

extension NotificationStore {
    public func noticesFromOtherServers() -> AsyncStream<ChangeNotice>? { nil }

    /// Creates a device, however many there are.
    public func createDevice(_ device: DeviceRecord) async throws {
        try await createDevice(device, maximumDevices: .max)
    }

    /// Removes an app and its notifications, whatever it holds.
    public func deleteApp(topic: String, device token: String) async throws -> DeviceChange? {
        try await deleteApp(topic: topic, device: token, precondition: nil)
    }

    /// Creates or replaces an app as it is given, however many the device has.
    public func saveApp(_ app: AppRecord, device token: String) async throws -> DeviceChange {
        try await updateApp(topic: app.topic, device: token, maximumApps: .max) { _ in app }
    }


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

/// A write to a device's notifications that stores commit in groups (``NotificationStore/commit(_:)``).
public enum NotificationWrite: Sendable {
    /// ``NotificationStore/deliver(_:app:at:device:)``, then, past `notificationsPerApp`, the app trimmed
    /// (``NotificationStore/trimNotifications(app:device:limit:)``) in the same transaction.
    case deliver(NotificationRequest, app: String, at: Date, device: String, notificationsPerApp: Int = .max)
    /// ``NotificationStore/deleteNotifications(app:identifiers:deliveredThrough:device:)``.
    case remove(app: String, identifiers: [String], deliveredThrough: UInt64? = nil, device: String)
    /// ``NotificationStore/recordEvent(_:device:)``.
    case record(DeviceEvent, device: String)

    /// The device written to.
    public var device: String {
        switch self {
        case .deliver(_, _, _, let device, _), .remove(_, _, _, let device), .record(_, let device): device
        }
    }
}

extension [NotificationWrite] {
    /// The deliveries among these writes that `results` (one per write) say were stored.
    public func storedDeliveries(_ results: [Result<[DeviceChange], StoreError>]) -> [NotificationLimit.StoredDelivery] {
        zip(indices, self).compactMap { position, write in
            guard case .deliver(_, let app, _, let token, let limit) = write, case .success = results[position] else { return nil }
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
