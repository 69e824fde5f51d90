import Foundation
import HuddleCore
import HuddleLocalization
import Logging

/// One device's center in memory, following the device's numbered changes in the store.
///
/// Every write is committed first (the store numbers it), then applied here in number order. Changes
/// committed by another server sharing the store arrive as notices, or are found when a change of ours
/// skips a number: the session then reads the ones it missed. So every server's copy of a center passes
/// through the same states in the same order, and the live streams name those states by change number.
actor DeviceSession {
    nonisolated let token: String
    nonisolated let live: LiveCenter
    nonisolated let feed: CenterFeed
    private let store: any NotificationStore
    private let logger: Logger
    /// The number of the last change applied to ``live``.
    private(set) var appliedChange: UInt64

    private init(token: String, snapshot: DeviceSnapshot, store: any NotificationStore, logger: Logger) {
        self.token = token
        self.store = store
        self.logger = logger
        live = LiveCenter(center: Self.center(from: snapshot, logger: logger))
        feed = CenterFeed(horizon: snapshot.lastChange)
        appliedChange = snapshot.lastChange
    }

    /// Reads a device's snapshot from the store into a new session; `nil` for an unknown token.
    static func load(
        token: String, store: any NotificationStore, logger: Logger = Logger(label: "huddle.devices")
    ) async throws -> DeviceSession? {
        guard let snapshot = try await ServerMetrics.timeStore("snapshot", { try await store.snapshot(device: token) }) else { return nil }
        return DeviceSession(token: token, snapshot: snapshot, store: store, logger: logger)
    }

    /// The snapshot's center; stored records that today's rules refuse are left out and logged, so that
    /// no record can make a device unreadable.
    private static func center(from snapshot: DeviceSnapshot, logger: Logger) -> Center {
        let (center, refused) = Center.loading(snapshot)
        for message in refused { logger.error("device \(snapshot.device.token): stored \(message)") }
        return center
    }

    // MARK: Writing

    /// Stores and delivers a notification.
    /// - Returns: the committed change, or `nil` for content with nothing to show (which is not stored).
    @discardableResult
    func deliver(_ request: NotificationRequest, app: String, at date: Date) async throws -> DeviceChange? {
        guard request.content.isVisible else { return nil }
        let change = try await commit("deliver") { store, token in try await store.deliver(request, app: app, at: date, device: token) }
        ServerMetrics.delivered()
        return change
    }

    /// Removes notifications of an app by identifier.
    /// - Returns: the identifiers that were there.
    func remove(app: String, identifiers: [String]) async throws -> [String] {
        let change = try await commit("remove") { store, token in
            try await store.deleteNotifications(app: app, identifiers: identifiers, device: token)
        }
        guard case .removed(_, let removed)? = change?.kind else { return [] }
        ServerMetrics.removed(removed.count)
        return removed
    }

    /// Removes a whole group.
    func remove(group: GroupID) async throws -> [String] {
        let identifiers = live.read { $0.notifications(in: group).map(\.identifier) }
        return try await remove(app: group.app, identifiers: identifiers)
    }

    /// Removes every notification of an app.
    func removeAll(app: String) async throws -> [String] {
        let identifiers = live.read { $0.deliveredNotifications(app: app).map(\.identifier) }
        return try await remove(app: app, identifiers: identifiers)
    }

    /// Creates or replaces an app: its settings, categories and localization files.
    /// - Throws: ``CenterError`` for invalid categories (nothing is stored then), ``CatalogError`` for a bad
    ///   localization file.
    func save(_ app: AppRecord) async throws {
        // Validate before anything is stored.
        var check = Center()
        try check.install(app)
        _ = try await commit("save_app") { store, token in try await store.saveApp(app, device: token) }
    }

    /// Removes an app with its notifications; `false` when the device had none.
    func deleteApp(topic: String) async throws -> Bool {
        try await commit("delete_app") { store, token in try await store.deleteApp(topic: topic, device: token) } != nil
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
        if live.read({ $0.registration(for: topic) != nil }) { return true }
        try await readMissedChanges()
        return live.read { $0.registration(for: topic) != nil }
    }

    // MARK: Following the store

    /// Applies the changes committed up to `number`, reading those this session has not seen.
    func catchUp(through number: UInt64 = .max) async throws {
        guard number > appliedChange else { return }
        try await readMissedChanges()
    }

    /// Applies a committed change, after those before it (reading them if this session missed some). A
    /// change another task applied meanwhile, while the store was read, is not applied twice.
    private func apply(_ change: DeviceChange) async throws {
        if change.number > appliedChange + 1 {
            try await readMissedChanges()
        }
        if change.number == appliedChange + 1 { try applyNext(change) }
    }

    private func readMissedChanges() async throws {
        let from = appliedChange
        guard let changes = try await ServerMetrics.timeStore("changes", { try await store.changes(device: token, after: from) }) else {
            try await reload()
            return
        }
        // Others may have applied some while the store was read.
        for change in changes where change.number == appliedChange + 1 {
            try applyNext(change)
            ServerMetrics.followedChange()
        }
    }

    /// Replaces the center with a new snapshot, when the changes since ours are no longer kept.
    private func reload() async throws {
        guard let snapshot = try await ServerMetrics.timeStore("snapshot", { try await store.snapshot(device: token) }),
            snapshot.lastChange > appliedChange
        else { return }
        live.replaceCenter(with: Self.center(from: snapshot, logger: logger))
        appliedChange = snapshot.lastChange
        live.read { feed.publish(ChangeEffect(number: snapshot.lastChange, reset: true), center: $0) }
    }

    /// Applies the next change to the center and tells the live streams, in one step.
    private func applyNext(_ change: DeviceChange) throws {
        var effect = ChangeEffect(number: change.number)
        switch change.kind {
        case .delivered(let notification):
            if let delivery = try live.deliver(notification) {
                effect.groups = [delivery.group]
                if let replacedGroup = delivery.replacedGroup { effect.groups.insert(replacedGroup) }
                effect.delivered = [notification.identifier]
            }
        case .removed(let app, let identifiers):
            let removals = (try? live.removeNotifications(withIdentifiers: identifiers, app: app)) ?? []
            effect.groups = Set(removals.map(\.group))
            effect.removed = removals.map(\.notification.identifier)
        case .appSaved(let app):
            do {
                try live.install(app)
            } catch {
                // Committed, so it counts as applied; it is left out as a reload would leave it out.
                logger.error("device \(token): stored app \(app.topic) is left out: \(error)")
                _ = live.unregister(app: app.topic)
            }
            effect.reset = true
        case .appDeleted(let topic):
            let removals = live.unregister(app: topic)
            effect.groups = Set(removals.map(\.group))
            effect.removed = removals.map(\.notification.identifier)
        case .superseded:
            break
        }
        appliedChange = change.number
        live.read { feed.publish(effect, center: $0) }
    }

    // MARK: Reading

    /// The center rendered for a viewer, with the change it is at: a live stream resuming after that
    /// change continues exactly where the rendering stops.
    func render(for viewer: Viewer, options: RenderOptions = RenderOptions()) -> (center: RenderedCenter, change: UInt64) {
        (live.render(for: viewer, options: options), appliedChange)
    }

    // MARK: Streams

    /// Whether a live stream of the center or of one of its groups is open.
    nonisolated var isWatched: Bool {
        feed.subscriberCount > 0 || live.hasSubscribers
    }

    /// Opens a live stream of the center for a viewer (see ``CenterFeed/subscribe(_:center:)``).
    func subscribe(_ request: CenterFeed.Subscription) -> CenterFeed.Stream {
        live.read { feed.subscribe(request, center: $0) }
    }
}

/// What one applied change did to a center, for the live streams.
struct ChangeEffect: Sendable {
    var number: UInt64
    /// The groups that changed (re-rendered, or gone if they no longer exist).
    var groups: Set<GroupID> = []
    var delivered: [String] = []
    var removed: [String] = []
    /// The change may touch every group (an app's settings, categories or strings): render everything.
    var reset = false
}
