import Foundation
import HuddleCore
import HuddleLocalization
import Logging
import NIOCore
import Synchronization

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
    /// What the commit queue committed for this device and this session has not applied yet.
    private let committed = CommittedChanges()
    /// The most notifications one app keeps; past that, its oldest go, in the delivery's transaction.
    private let notificationsPerApp: Int
    /// The apps the center has, as of the last change applied, each with what FCM knows of it and its web push
    /// subscription: read without entering the session, by every push before its payload is read, every FCM message to
    /// an app's registration token and every web push to a subscription's endpoint.
    private let installedApps: Mutex<[String: InstalledApp]>

    /// What the senders read of an installed app.
    struct InstalledApp: Sendable {
        var firebase: FirebaseInstallation
        var webPush: WebPushSubscription?

        init(_ app: AppRecord) {
            firebase = app.firebase
            webPush = app.webPush
        }
    }
    let logger: Logger

    private init(
        token: String, snapshot: DeviceSnapshot, store: any NotificationStore, commits: CommitQueue, notificationsPerApp: Int,
        clock: @escaping @Sendable () -> Date, logger: Logger
    ) {
        self.token = token
        device = snapshot.device
        self.store = store
        self.commits = commits
        self.notificationsPerApp = max(1, notificationsPerApp)
        self.logger = logger
        let center = Self.center(from: snapshot, logger: logger)
        installedApps = Mutex(Self.installations(in: snapshot, center: center))
        publisher = CenterPublisher(
            center: center, lastChange: snapshot.lastChange, events: snapshot.events, activities: snapshot.activities,
            declarations: Self.declarations(in: snapshot), attention: DeviceAttention(snapshot: snapshot),
            shadeApps: Self.shadeApps(in: snapshot, center: center), clock: clock, logger: logger)
        subscribers = publisher.subscribers
    }

    /// Reads a device's snapshot from the store into a new session; `nil` for an unknown token.
    /// - Parameters:
    ///   - notificationsPerApp: the most notifications one app keeps; past that, its oldest go.
    ///   - clock: the server's clock, which the session's renderings read.
    static func load(
        token: String, store: any NotificationStore, commits: CommitQueue? = nil,
        notificationsPerApp: Int = ServerConfiguration.Limits().notificationsPerApp, clock: @escaping @Sendable () -> Date = { Date() },
        logger: Logger = Logger(label: "huddle.devices")
    ) async throws -> DeviceSession? {
        guard let snapshot = try await ServerMetrics.timeStore("snapshot", { try await store.snapshot(device: token) }) else { return nil }
        return DeviceSession(
            token: token, snapshot: snapshot, store: store, commits: commits ?? CommitQueue(store: store, logger: logger),
            notificationsPerApp: notificationsPerApp, clock: clock, logger: logger)
    }

    /// The snapshot's center; stored records that today's rules refuse are left out and logged, so that
    /// no record can make a device unreadable.
    private static func center(from snapshot: DeviceSnapshot, logger: Logger) -> Center {
        let (center, refused) = Center.loading(snapshot)
        for message in refused { logger.error("device \(snapshot.device.token): stored \(message)") }
        return center
    }

    /// What FCM knows of each app the center has.
    private static func installations(in snapshot: DeviceSnapshot, center: Center) -> [String: InstalledApp] {
        let registered = Set(center.registeredApps)
        return Dictionary(
            snapshot.apps.filter { registered.contains($0.topic) }.map { ($0.topic, InstalledApp($0)) }, uniquingKeysWith: { _, last in last })
    }

    /// An Android phone's installed apps, by package name, which draw its shade; `nil` for an iPhone, which has none.
    private static func shadeApps(in snapshot: DeviceSnapshot, center: Center) -> [String: AndroidShade.App]? {
        guard snapshot.device.kind.presentation == .shade else { return nil }
        let registered = Set(center.registeredApps)
        return Dictionary(
            snapshot.apps.filter { registered.contains($0.topic) }.map { ($0.topic, AndroidShade.App(record: $0)) }, uniquingKeysWith: { _, last in last })
    }

    /// Each app's declared activity types, by bundle identifier.
    private static func declarations(in snapshot: DeviceSnapshot) -> [String: ActivityDeclarations] {
        Dictionary(snapshot.apps.map { ($0.topic, $0.activities) }, uniquingKeysWith: { _, last in last })
    }

    /// The number of the last change applied.
    var appliedChange: UInt64 { publisher.lastChange }

    // MARK: Writing

    /// Stores and delivers a notification. When that takes its app past its limit, the app's oldest go in
    /// the same transaction, as a second change.
    /// - Returns: the delivery's change, applied; `nil` for content with nothing to show (which is not
    ///   stored).
    /// - Throws: ``DeliveryRefusal`` when the device or the app is gone (another server sharing the store
    ///   removed it after this one loaded the device); the store's error when it failed.
    /// - Parameter receipt: the receipt of the message that brought it, committed with it.
    @discardableResult
    func deliver(_ request: NotificationRequest, app: String, at date: Date, receipt: DeliveryReceipt? = nil) async throws -> DeviceChange? {
        guard request.content.isVisible else { return nil }
        if let problem = NotificationLimits.problem(identifier: request.identifier) { throw DeliveryRefusal.unstorableIdentifier(problem: problem) }
        let write = NotificationWrite.deliver(request, app: app, at: date, device: token, notificationsPerApp: notificationsPerApp)
        let changes = try await commitInTurn(receipt.map { .receipted(write, receipt: $0) } ?? write)
        ServerMetrics.delivered()
        for case .removed(_, let trimmed) in changes.dropFirst().map(\.kind) { ServerMetrics.removed(trimmed.count) }
        return changes.first
    }

    /// Records what the device did with a push that shows nothing.
    /// - Throws: ``DeliveryRefusal`` as ``deliver(_:app:at:)`` does; the store's error when it failed.
    /// - Parameter receipt: the receipt of the message that brought it, committed with it.
    func record(_ event: DeviceEvent, receipt: DeliveryReceipt? = nil) async throws {
        let write = NotificationWrite.record(event, device: token)
        _ = try await commitInTurn(receipt.map { .receipted(write, receipt: $0) } ?? write)
    }

    /// Stores the receipt of a message the device kept nothing of (``NotificationWrite/receipted(_:receipt:)`` brings
    /// the others' with them).
    func save(_ receipt: DeliveryReceipt) async throws {
        try await store.saveReceipts([receipt])
    }

    /// Changes the person's settings of the device in the store's transaction, then applies the change here.
    /// - Returns: the settings as they are now.
    /// - Throws: ``DeliveryRefusal`` when the device is gone; what `update` throws.
    func updateSettings(_ update: @escaping DeviceSettingsUpdate) async throws -> DeviceSettings {
        let changes = try await commitAndApply("update_settings") { store, token in
            try await store.updateDeviceSettings(device: token, update).map { [$0] } ?? []
        }
        if case .settings(let settings)? = changes.last?.kind { return settings }
        return publisher.settings
    }

    /// The person's settings of the device, as last applied.
    var settings: DeviceSettings { publisher.settings }

    /// Delivers the scheduled summaries due by `date` (`nil`: the next one, whenever due) in the store's transaction,
    /// then applies them here: each is one change, which a live stream gets as one `center` event.
    /// - Returns: the summaries delivered; none when nothing was due (or another server delivered it first).
    @discardableResult
    func deliverSummaries(dueBy date: Date?) async throws -> [ScheduledSummary] {
        let changes = try await commitAndApply("deliver_summaries") { store, token in try await store.deliverSummaries(device: token, dueBy: date) }
        return changes.compactMap { change in
            if case .summary(let summary) = change.kind { summary } else { nil }
        }
    }

    /// Changes the device's Live Activities in the store's transaction (a push applied to them, a person
    /// dismissing one), then applies the changes here.
    /// - Returns: the event that says what the device did, if `update` gave one.
    /// - Throws: ``DeliveryRefusal`` when the device or the app is gone; what `update` throws.
    @discardableResult
    func updateActivities(app: String, _ update: @escaping ActivitiesUpdate) async throws -> DeviceEvent? {
        let changes = try await commitAndApply("update_activities") { store, token in try await store.updateActivities(device: token, app: app, update) }
        guard case .event(let event)? = changes.last?.kind else { return nil }
        return event
    }

    /// The frame of a write decided in the store's own transaction: committed there (timed as `operation`), then
    /// applied here in number order. A device or an app the store no longer has is a ``DeliveryRefusal``. A change
    /// that cannot be applied is logged: it is committed all the same, and answered so (a push answered 500 would be
    /// sent again, and a start start a second activity), and the session catches up with its next change.
    private func commitAndApply(
        _ operation: String, _ write: (any NotificationStore, String) async throws -> [DeviceChange]
    ) async throws -> [DeviceChange] {
        let changes: [DeviceChange]
        do {
            changes = try await ServerMetrics.timeStore(operation) { try await write(store, token) }
        } catch let error as StoreError where error.code == .notFound {
            throw try await refusal()
        }
        do {
            for change in changes { try await apply(change) }
        } catch {
            logger.error("device \(token): cannot apply committed changes: \(error)")
        }
        return changes
    }

    /// The device's Live Activities as the Lock Screen shows them at `now`: gone stale, ended or removed by
    /// time since they were stored (the next change stores that).
    func activities(at now: Date) -> [LiveActivity] {
        var activities = DeviceActivities(activities: publisher.activities)
        _ = activities.advance(to: now)
        return activities.lockScreenOrder
    }

    /// Removes notifications of an app by identifier.
    /// - Returns: the identifiers that were there.
    func remove(app: String, identifiers: [String]) async throws -> [String] {
        guard !identifiers.isEmpty else { return [] }
        guard case .removed(_, let removed)? = try await commitInTurn(.remove(app: app, identifiers: identifiers, device: token)).first?.kind
        else { return [] }
        ServerMetrics.removed(removed.count)
        return removed
    }

    /// Commits a write through the commit queue, then applies every change the queue committed for this
    /// device so far, in number order: this write's and any of writers that have not come back yet.
    private func commitInTurn(_ write: NotificationWrite) async throws -> [DeviceChange] {
        let changes: [DeviceChange]
        do {
            changes = try await commits.commit(write, into: committed)
        } catch let error as StoreError where error.code == .notFound {
            throw try await refusal()
        }
        do {
            for change in committed.take() { try await apply(change) }
            // Applied by a writer still reading changes this session missed, perhaps: read them too.
            for change in changes where change.number > appliedChange { try await apply(change) }
        } catch {
            // Committed all the same: the session catches up with its next change.
            logger.error("device \(token): cannot apply committed changes: \(error)")
        }
        return changes
    }

    /// Why a write found no device or app: the device is gone, or this session had the app and the store
    /// has not (the session catches up to show that).
    private func refusal() async throws -> DeliveryRefusal {
        guard try await store.device(token: token) != nil else { return .deviceGone }
        try await readMissedChanges()
        return .unknownApp
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

    /// Whether the device has an app, without entering the session when it is known; else after catching up
    /// with the store (another server may have installed it).
    nonisolated func knowsApp(_ topic: String) async throws -> Bool {
        if installedApps.withLock({ $0[topic] != nil }) { return true }
        return try await catchUpAndCheck(topic)
    }

    private func catchUpAndCheck(_ topic: String) async throws -> Bool {
        try await readMissedChanges()
        return publisher.center.registration(for: topic) != nil
    }

    // MARK: Following the store

    /// Applies the changes committed up to `number`, reading those this session has not seen.
    func catchUp(through number: UInt64 = .max) async throws {
        guard number > appliedChange else { return }
        try await readMissedChanges()
    }

    /// Applies a committed change, after those before it: first those the commit queue holds, then, for
    /// a gap still left, those read from the store (committed by another server). A change applied
    /// meanwhile, while the store was read, is not applied twice.
    private func apply(_ change: DeviceChange) async throws {
        if change.number > appliedChange + 1 {
            // Those past a gap go back: the gap is read from the store below, and they follow it.
            var pastGap: [DeviceChange] = []
            for earlier in committed.take() where earlier.number > appliedChange {
                if earlier.number == appliedChange + 1 { applyNext(earlier) } else { pastGap.append(earlier) }
            }
            committed.add(pastGap)
        }
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
        let center = Self.center(from: snapshot, logger: logger)
        publisher.replace(
            with: center, lastChange: snapshot.lastChange, events: snapshot.events,
            activities: snapshot.activities, declarations: Self.declarations(in: snapshot), attention: DeviceAttention(snapshot: snapshot),
            shadeApps: Self.shadeApps(in: snapshot, center: center))
        let installations = Self.installations(in: snapshot, center: center)
        installedApps.withLock { $0 = installations }
    }

    /// Applies the next change to the center and tells the live streams, in one step.
    private func applyNext(_ change: DeviceChange) {
        let update = publisher.apply(change)
        switch change.kind {
        case .appSaved(let app):
            let registered = publisher.center.registration(for: app.topic) != nil
            installedApps.withLock { $0[app.topic] = registered ? InstalledApp(app) : nil }
        case .appDeleted(let topic):
            installedApps.withLock { $0[topic] = nil }
        default: break
        }
        // Committed, so it counts as applied; it is left out as a reload would leave it out.
        if let refusal = update.refusal { logger.error("device \(token): stored \(refusal)") }
    }

    /// What FCM knows of an installed app, as of the last change applied (nothing is read from the store).
    nonisolated func firebaseInstallation(of topic: String) -> FirebaseInstallation? {
        installedApps.withLock { $0[topic]?.firebase }
    }

    /// A web app's push subscription, as of the last change applied (nothing is read from the store).
    nonisolated func webPushSubscription(of topic: String) -> WebPushSubscription? {
        installedApps.withLock { $0[topic]?.webPush }
    }

    // MARK: Reading

    /// Reads the center as it is after the last applied change.
    func read<Value: Sendable>(_ body: @Sendable (borrowing Center) -> Value) -> Value {
        body(publisher.center)
    }

    /// The device's latest events, newest first, at most `limit`.
    func events(limit: Int) -> [RecordedEvent] {
        Array(publisher.events.suffix(limit).reversed())
    }

    /// The center as a view shows it now.
    func document(_ view: CenterView) -> ByteBuffer {
        publisher.document(view)
    }

    /// What the web page of the center shows for a viewer, taken at one moment: its stacks' HTML, the change
    /// it is at, the device's apps, its latest events (newest first) and its Live Activities as the Lock
    /// Screen shows them at `now`, so that the page's stream, resuming after that change, sends just the
    /// later ones.
    func page(for viewer: Viewer, at now: Date) -> CenterPageContent {
        let view = CenterView(viewer: viewer, format: .html, notificationLimit: WebPages.notificationLimit)
        return CenterPageContent(
            groupsHTML: String(buffer: publisher.document(view)), change: appliedChange, apps: publisher.center.registeredApps,
            events: events(limit: WebPages.eventLimit), activities: publisher.activityCards(at: now),
            deviceHTML: publisher.deviceHTML(for: viewer), layout: publisher.attention.isInPlay ? publisher.settings.lockScreen.rawValue : "")
    }

    /// An Android phone's shade as a viewer sees it (``CenterPublisher/shade(for:)``), the change it is at and the latest
    /// events (newest first), all as of one change: the page's stream, resuming after it, sends just the later ones.
    /// `nil` for an iPhone, which has no shade.
    func shade(for viewer: Viewer) -> ShadeContent? {
        publisher.shade(for: viewer).map { ShadeContent(shade: $0, change: appliedChange, events: events(limit: WebPages.eventLimit)) }
    }

    /// Waits until `condition` holds of the center and the number of its last change (checked at once, then
    /// after each change), for at most `limit`, and no longer than the client's `channel` is open.
    /// - Returns: whether it came to hold in time.
    func wait(
        within limit: Duration, whileOpen channel: any Channel, until condition: @escaping @Sendable (borrowing Center, UInt64) -> Bool
    ) async -> Bool {
        if holds(condition) { return true }
        // A stream of the center's changes as the wake-up: a view of one notification keeps its renderings small.
        let changes = publisher.subscribe(
            CenterView(viewer: Viewer(), format: .json, notificationLimit: 1), resumingAfter: appliedChange, byteLimit: 1 << 20)
        let met = await EventDeadline.happens(within: limit, whileOpen: channel) {
            while await changes.next() != nil {
                if await self.holds(condition) { return true }
            }
            return false
        }
        return met || holds(condition)
    }

    private func holds(_ condition: (borrowing Center, UInt64) -> Bool) -> Bool {
        condition(publisher.center, appliedChange)
    }

    // MARK: Streams

    /// Whether a live stream of the center or of one of its groups is open.
    nonisolated var isWatched: Bool {
        !subscribers.isEmpty
    }

    /// Runs `write`, a write to this session, on Swift's pool when a live stream watches the device; else where
    /// the calling task runs.
    ///
    /// A push's task runs on its connection's event loop (``EventLoopTaskExecutor``), and so does the session it
    /// enters, which applies the committed change and renders it for every view that watches the device (every
    /// group's HTML, the whole center after a change of the person's settings). That is the costly part of a write,
    /// and only a watched device has it: on the pool it leaves the loop to read and answer the connection's other
    /// pushes meanwhile. An unwatched device's write stays on the loop, sparing two thread hops.
    nonisolated func onPoolWhenWatched<Value>(_ write: () async throws -> Value) async throws -> Value {
        guard isWatched else { return try await write() }
        return try await withTaskExecutorPreference(globalConcurrentExecutor, operation: write)
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
