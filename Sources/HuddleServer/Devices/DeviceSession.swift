import Foundation
import HuddleCore
import HuddleLocalization
import Logging
import NIOCore

/// One device's center in memory, following the device's numbered changes in the store: the one owner of
/// the device's live state (its center, renderings and streams, in ``CenterPublisher``).
///
/// Every write is committed first (the store numbers it), then applied here in number order. Changes
/// committed by another server sharing the store arrive as notices, or are found when a change of ours
/// skips a number: the session then reads the ones it missed. So every server's copy of a center passes
/// through the same states in the same order, and the live streams name those states by change number.
actor DeviceSession {
    nonisolated let token: String
    /// The device's record as loaded (its name and secret's hash do not change).
    nonisolated let device: DeviceRecord
    /// The device's live streams, which end on their own (a client gone) or with the device.
    nonisolated let subscribers: Subscribers
    private var publisher: CenterPublisher
    private let store: any NotificationStore
    /// Where deliveries and removals are committed, with other devices' in one transaction.
    private let commits: CommitQueue
    /// The most notifications one app keeps; past that, its oldest go.
    private let notificationsPerApp: Int
    /// Notifications, by app, whose removal to keep their app within the limit is under way and not yet
    /// applied, so that deliveries meanwhile do not count them or remove them again.
    private var leaving: [String: Set<String>] = [:]
    private let logger: Logger

    private init(
        token: String, snapshot: DeviceSnapshot, store: any NotificationStore, commits: CommitQueue, notificationsPerApp: Int,
        logger: Logger
    ) {
        self.token = token
        device = snapshot.device
        self.store = store
        self.commits = commits
        self.notificationsPerApp = max(1, notificationsPerApp)
        self.logger = logger
        publisher = CenterPublisher(center: Self.center(from: snapshot, logger: logger), lastChange: snapshot.lastChange, logger: logger)
        subscribers = publisher.subscribers
    }

    /// Reads a device's snapshot from the store into a new session; `nil` for an unknown token.
    /// - Parameter notificationsPerApp: the most notifications one app keeps; past that, its oldest go.
    static func load(
        token: String, store: any NotificationStore, commits: CommitQueue? = nil,
        notificationsPerApp: Int = ServerConfiguration.Limits().notificationsPerApp, logger: Logger = Logger(label: "huddle.devices")
    ) async throws -> DeviceSession? {
        guard let snapshot = try await ServerMetrics.timeStore("snapshot", { try await store.snapshot(device: token) }) else { return nil }
        return DeviceSession(
            token: token, snapshot: snapshot, store: store, commits: commits ?? CommitQueue(store: store, logger: logger),
            notificationsPerApp: notificationsPerApp, logger: logger)
    }

    /// The snapshot's center; stored records that today's rules refuse are left out and logged, so that
    /// no record can make a device unreadable.
    private static func center(from snapshot: DeviceSnapshot, logger: Logger) -> Center {
        let (center, refused) = Center.loading(snapshot)
        for message in refused { logger.error("device \(snapshot.device.token): stored \(message)") }
        return center
    }

    /// The number of the last change applied.
    var appliedChange: UInt64 { publisher.lastChange }

    // MARK: Writing

    /// Stores and delivers a notification, then, when its app has more than its limit, removes the app's
    /// oldest before answering (unless another delivery's removal of them is under way; a removal that
    /// fails is tried again at the app's next delivery).
    ///
    /// Not isolated: the push waits for its transaction in the commit queue, which hands the session all of
    /// its committed changes of a batch at once (``applyCommitted(_:)``).
    /// - Returns: the committed change, or `nil` for content with nothing to show (which is not stored).
    @discardableResult
    nonisolated func deliver(_ request: NotificationRequest, app: String, at date: Date) async throws -> DeviceChange? {
        guard request.content.isVisible else { return nil }
        let change = try await commits.commit(.deliver(request, app: app, at: date, device: token), of: self)
        ServerMetrics.delivered()
        let surplus = await takeSurplus(of: app)
        if !surplus.identifiers.isEmpty {
            do {
                _ = try await remove(app: app, identifiers: surplus.identifiers, deliveredThrough: surplus.deliveredThrough)
            } catch {
                // The delivery is stored and answered all the same; the app's next delivery tries again.
                logger.error("device \(token): cannot remove the oldest notifications of \(app) past its limit: \(error)")
            }
            await letGo(surplus.identifiers, of: app)
        }
        return change
    }

    /// The oldest notifications to remove for an app to be within its limit, beyond those leaving already,
    /// and the change that delivered the newest of them: one delivered again after it (a collapse
    /// identifier reused) stays. They count as leaving until their removal is applied or let go of.
    private func takeSurplus(of app: String) -> (identifiers: [String], deliveredThrough: UInt64) {
        let center = publisher.center
        let leavingAlready = leaving[app] ?? []
        guard center.notificationCount(app: app) - leavingAlready.count > notificationsPerApp else { return ([], 0) }
        let surplus = center.notificationsPastLimit(notificationsPerApp, app: app).filter { !leavingAlready.contains($0.identifier) }
        let identifiers = surplus.map(\.identifier)
        leaving[app, default: []].formUnion(identifiers)
        return (identifiers, surplus.map(\.stamp.sequence).max() ?? 0)
    }

    /// Forgets what a removal under way was to remove (whatever it did remove is gone from `leaving` when
    /// it was applied).
    private func letGo(_ identifiers: [String], of app: String) {
        leaving[app]?.subtract(identifiers)
        if leaving[app]?.isEmpty == true { leaving[app] = nil }
    }

    /// Removes notifications of an app by identifier.
    /// - Parameter deliveredThrough: when given, only those delivered at or before this change go.
    /// - Returns: the identifiers that were there.
    nonisolated func remove(app: String, identifiers: [String], deliveredThrough: UInt64? = nil) async throws -> [String] {
        guard !identifiers.isEmpty else { return [] }
        let change = try await commits.commit(
            .remove(app: app, identifiers: identifiers, deliveredThrough: deliveredThrough, device: token), of: self)
        guard case .removed(_, let removed)? = change?.kind else { return [] }
        ServerMetrics.removed(removed.count)
        return removed
    }

    /// Removes a whole group.
    func remove(group: GroupID) async throws -> [String] {
        try await remove(app: group.app, identifiers: publisher.center.notifications(in: group).map(\.identifier))
    }

    /// Removes every notification of an app.
    func removeAll(app: String) async throws -> [String] {
        try await remove(app: app, identifiers: publisher.center.deliveredNotifications(app: app).map(\.identifier))
    }

    /// Installs or changes an app (its name, settings, categories and localization files), decided in the
    /// store's transaction against the app as stored then (``NotificationStore/updateApp(topic:device:maximumApps:_:)``),
    /// so that concurrent changes of one app all stay and racing installs cannot pass `maximumApps`.
    ///
    /// What a change brings (categories, a file) is validated by the caller before, with ``validate(_:)``:
    /// each category and each file is valid or not on its own, so a valid app stays valid, and the store's
    /// transaction (on SQLite, every device's writer) never waits for catalogs to be parsed.
    /// - Returns: the app as stored.
    /// - Throws: what `update` throws (nothing is stored then); ``StoreError`` `.conflict` past `maximumApps`.
    func updateApp(topic: String, maximumApps: Int, _ update: @escaping AppUpdate) async throws -> AppRecord {
        let change = try await commit("save_app") { store, token in
            try await store.updateApp(topic: topic, device: token, maximumApps: maximumApps, update)
        }
        guard case .appSaved(let app)? = change?.kind else { throw StoreError(.corrupt, "saving an app recorded another change") }
        return app
    }

    /// Checks what a change of an app brings, as an app of its own: its categories, or its files.
    /// - Throws: ``CenterError`` for an invalid category or string, ``CatalogError`` for an unreadable file.
    nonisolated static func validate(_ piece: AppRecord) throws {
        var check = Center()
        try check.install(piece)
    }

    /// Removes an app with its notifications, when `precondition` holds of it as stored; `false` when the
    /// device had none.
    func deleteApp(topic: String, precondition: AppPrecondition? = nil) async throws -> Bool {
        try await commit("delete_app") { store, token in
            try await store.deleteApp(topic: topic, device: token, precondition: precondition)
        } != nil
    }

    /// Commits a change through the store, then applies it (and any it skipped over).
    /// - Returns: the change, or `nil` when the store had nothing to change.
    private func commit(
        _ operation: String, _ write: (any NotificationStore, String) async throws -> DeviceChange?
    ) async throws -> DeviceChange? {
        guard let change = try await ServerMetrics.timeStore(operation, { try await write(store, token) }) else { return nil }
        try await apply(change)
        return change
    }

    /// Whether the device has an app, after catching up with the store if this session does not know it
    /// yet (another server may have installed it).
    func knowsApp(_ topic: String) async throws -> Bool {
        if publisher.center.registration(for: topic) != nil { return true }
        try await readMissedChanges()
        return publisher.center.registration(for: topic) != nil
    }

    // MARK: Following the store

    /// Applies the changes committed up to `number`, reading those this session has not seen.
    func catchUp(through number: UInt64 = .max) async throws {
        guard number > appliedChange else { return }
        try await readMissedChanges()
    }

    /// Applies changes the commit queue committed for this device, in number order.
    func applyCommitted(_ changes: [DeviceChange]) async throws {
        for change in changes { try await apply(change) }
    }

    /// Applies a committed change, after those before it (reading them if this session missed some). A
    /// change another task applied meanwhile, while the store was read, is not applied twice.
    private func apply(_ change: DeviceChange) async throws {
        if change.number > appliedChange + 1 {
            try await readMissedChanges()
        }
        if change.number == appliedChange + 1 { applyNext(change) }
    }

    private func readMissedChanges() async throws {
        let from = appliedChange
        guard let changes = try await ServerMetrics.timeStore("changes", { try await store.changes(device: token, after: from) }) else {
            try await reload()
            return
        }
        // Others may have applied some while the store was read.
        for change in changes where change.number == appliedChange + 1 {
            applyNext(change)
            ServerMetrics.followedChange()
        }
    }

    /// Replaces the center with a new snapshot, when the changes since ours are no longer kept.
    private func reload() async throws {
        guard let snapshot = try await ServerMetrics.timeStore("snapshot", { try await store.snapshot(device: token) }),
            snapshot.lastChange > appliedChange
        else { return }
        publisher.replace(with: Self.center(from: snapshot, logger: logger), lastChange: snapshot.lastChange)
    }

    /// Applies the next change to the center and tells the live streams, in one step.
    private func applyNext(_ change: DeviceChange) {
        let update = publisher.apply(change)
        // Removed now, so no longer leaving: the app's count is right again before the removal's writer
        // comes back to let go.
        if case .removed(let app, let identifiers) = change.kind, leaving[app] != nil { letGo(identifiers, of: app) }
        // Committed, so it counts as applied; it is left out as a reload would leave it out.
        if let refusal = update.refusal { logger.error("device \(token): stored \(refusal)") }
    }

    // MARK: Reading

    /// Reads the center as it is after the last applied change.
    func read<Value: Sendable>(_ body: @Sendable (borrowing Center) -> Value) -> Value {
        body(publisher.center)
    }

    /// The center as a view shows it now.
    func document(_ view: CenterView) -> ByteBuffer {
        publisher.document(view)
    }

    /// What the web page of the center shows for a viewer, taken at one moment: its stacks' HTML, the change
    /// it is at, and the device's apps.
    func page(for viewer: Viewer) -> (groupsHTML: String, change: UInt64, apps: [String]) {
        let view = CenterView(viewer: viewer, format: .html, notificationLimit: WebPages.notificationLimit)
        return (String(buffer: publisher.document(view)), appliedChange, publisher.center.registeredApps)
    }

    // MARK: Streams

    /// Whether a live stream of the center or of one of its groups is open.
    nonisolated var isWatched: Bool {
        !subscribers.isEmpty
    }

    /// Opens a live stream of the center (see ``CenterPublisher/subscribe(_:resumingAfter:byteLimit:)``).
    func subscribe(_ view: CenterView, resumingAfter: UInt64?, bufferBytes: Int) -> Subscription {
        publisher.subscribe(view, resumingAfter: resumingAfter, byteLimit: bufferBytes)
    }

    /// Opens a live stream of one group, as a notification content extension sees it.
    func subscribe(_ group: GroupID, viewer: Viewer, bufferBytes: Int) -> Subscription {
        publisher.subscribe(group, viewer: viewer, byteLimit: bufferBytes)
    }
}
