public import Foundation
public import HuddleLocalization

/// One device's Notification Center: the apps it knows, their delivered notifications, and the groups
/// they stack into (behavior.md sections 1 to 3 and 8).
///
/// A value type: copy it to keep a snapshot. Changes return what they changed (``apply(_:)`` gathers it
/// into a ``CenterUpdate``), so that a live layer can tell subscribers without diffing.
public struct Center: Sendable {
    private(set) var apps: [String: AppState] = [:]
    private(set) var order = CenterOrder()
    /// The sequence numbers of every group's leading notification: an order entry is live when its
    /// stamp is one of them. Integers hash far faster than group identifiers, and the order checks
    /// many entries.
    private var liveLeaders: Set<UInt64> = []
    private var lastSequence: UInt64 = 0
    /// The number of groups, kept so the order knows when to compact.
    private var groupCount = 0

    public init() {}

    // MARK: Apps

    /// Registers an app, or replaces the registration of one already known (keeping its notifications,
    /// and regrouping them if the grouping setting changed).
    /// - Throws: ``CenterError`` when one of the registration's categories is invalid, or one of its
    ///   localized strings could never be shown within the limits.
    public mutating func register(_ registration: AppRegistration) throws(CenterError) {
        let app = registration.bundleIdentifier
        try CategoryValidation.validate(Array(registration.categories.values), app: app)
        try registration.validateLocalizations()
        guard let existing = apps[app] else {
            apps[app] = AppState(registration: registration)
            return
        }
        let regroup = existing.registration.settings.grouping != registration.settings.grouping
        apps[app]?.registration = registration
        if regroup { regroupNotifications(of: app) }
    }

    /// Forgets an app with its notifications (the app was deleted from the device).
    /// - Returns: the removed notifications with the groups they left; empty for an unknown app.
    @discardableResult
    public mutating func unregister(app: String) -> [Removal] {
        guard apps[app] != nil, let removals = try? removeAllNotifications(app: app) else { return [] }
        apps[app] = nil
        return removals
    }

    /// The registration of an app, if the center knows it.
    public func registration(for app: String) -> AppRegistration? {
        apps[app]?.registration
    }

    /// The apps the center knows, sorted.
    public var registeredApps: [String] { apps.keys.sorted() }

    /// Replaces an app's whole set of categories (`setNotificationCategories`).
    /// - Throws: ``CenterError`` naming the category and conversion when a summary format or placeholder
    ///   is not allowed (behavior.md section 6); nothing changes then.
    public mutating func setCategories(_ categories: [NotificationCategory], for app: String) throws(CenterError) {
        guard apps[app] != nil else { throw .unknownApp(app) }
        try CategoryValidation.validate(categories, app: app)
        var byIdentifier: [String: NotificationCategory] = [:]
        for category in categories { byIdentifier[category.identifier] = category }
        apps[app]?.registration.categories = byIdentifier
    }

    /// Changes an app's settings. Notifications already delivered regroup at once when grouping changes.
    public mutating func setSettings(_ settings: AppSettings, for app: String) throws(CenterError) {
        guard let state = apps[app] else { throw .unknownApp(app) }
        let regroup = state.registration.settings.grouping != settings.grouping
        apps[app]?.registration.settings = settings
        if regroup { regroupNotifications(of: app) }
    }

    /// Replaces an app's localized strings.
    public mutating func setLocalizations(_ localizations: LocalizationBundle, for app: String) throws(CenterError) {
        guard apps[app] != nil else { throw .unknownApp(app) }
        apps[app]?.registration.localizations = localizations
    }

    // MARK: Delivering

    /// Delivers a notification.
    ///
    /// A request whose identifier the app already has replaces that notification: the old one leaves its
    /// group, and the new one arrives now, possibly in another group. A request with nothing to show (no
    /// title, subtitle or body: a background or badge-only push) leaves the center unchanged.
    /// - Returns: what changed, or `nil` when the request had nothing to show.
    /// - Complexity: amortized O(1) when `date` is the newest in the center.
    @discardableResult
    public mutating func deliver(
        _ request: NotificationRequest, app: String, at date: Date
    ) throws(CenterError) -> Delivery? {
        guard apps[app] != nil else { throw .unknownApp(app) }
        guard request.content.isVisible else { return nil }
        return try deliver(DeliveredNotification(app: app, request: request, stamp: makeStamp(at: date)))
    }

    /// Takes the next delivery stamp, for a caller that must store a notification before delivering it
    /// (a server commits first, then delivers with ``deliver(_:)``).
    public mutating func makeStamp(at date: Date) -> DeliveryStamp {
        lastSequence += 1
        return DeliveryStamp(date: date, sequence: lastSequence)
    }

    /// Delivers a notification that already has its stamp: one made by ``makeStamp(at:)``, or one read back
    /// from storage. Later stamps continue after the highest sequence seen.
    /// - Returns: what changed, or `nil` when the content has nothing to show.
    @discardableResult
    public mutating func deliver(_ notification: DeliveredNotification) throws(CenterError) -> Delivery? {
        let app = notification.app
        guard let appIndex = apps.index(forKey: app) else { throw .unknownApp(app) }
        guard notification.content.isVisible else { return nil }
        lastSequence = max(lastSequence, notification.stamp.sequence)
        // One lookup of the app, then everything happens in place inside its state.
        let change = apps.values[appIndex].deliver(notification)
        var replacedGroup: GroupID?
        if let replacedKind = change.replacedKind {
            let group = GroupID(app: app, kind: replacedKind)
            applyLeadership(change.replacedLeadership, group: group)
            replacedGroup = group
        }
        let group = GroupID(app: app, kind: change.kind)
        applyLeadership(change.leadership, group: group)
        compactOrderIfNeeded()
        return Delivery(notification: notification, group: group, replaced: change.replaced, replacedGroup: replacedGroup)
    }

    /// The sequence number of the latest delivery.
    public var lastDeliverySequence: UInt64 { lastSequence }

    // MARK: Removing

    /// Removes notifications of an app by identifier; unknown identifiers are ignored.
    /// - Returns: the removed notifications with the groups they left.
    @discardableResult
    public mutating func removeNotifications(
        withIdentifiers identifiers: some Sequence<String>, app: String
    ) throws(CenterError) -> [Removal] {
        guard let appIndex = apps.index(forKey: app) else { throw .unknownApp(app) }
        var removals: [Removal] = []
        for identifier in identifiers {
            guard let change = apps.values[appIndex].remove(identifier: identifier) else { continue }
            let group = GroupID(app: app, kind: change.kind)
            applyLeadership(change.leadership, group: group)
            removals.append(Removal(notification: change.notification, group: group))
        }
        compactOrderIfNeeded()
        return removals
    }

    /// Removes a whole group, as clearing a stack does. An unknown group removes nothing.
    @discardableResult
    public mutating func removeGroup(_ group: GroupID) throws(CenterError) -> [Removal] {
        guard let state = apps[group.app] else { throw .unknownApp(group.app) }
        let identifiers = (state.groups[group.kind]?.members ?? []).reversed().map { state.notifications[slot: $0.slot].identifier }
        return try removeNotifications(withIdentifiers: identifiers, app: group.app)
    }

    /// Removes every notification of an app (`removeAllDeliveredNotifications`).
    @discardableResult
    public mutating func removeAllNotifications(app: String) throws(CenterError) -> [Removal] {
        guard let state = apps[app] else { throw .unknownApp(app) }
        return try removeNotifications(withIdentifiers: Array(state.notifications.identifiers), app: app)
    }

    // MARK: Reading

    /// An app's delivered notifications, newest first (`getDeliveredNotifications`).
    public func deliveredNotifications(app: String) -> [DeliveredNotification] {
        guard let state = apps[app] else { return [] }
        return state.notifications.all.sorted { $0.stamp > $1.stamp }
    }

    /// How many notifications an app has now.
    public func notificationCount(app: String) -> Int {
        apps[app]?.notifications.count ?? 0
    }

    /// One notification by app and identifier.
    public func notification(_ identifier: String, app: String) -> DeliveredNotification? {
        apps[app]?.notifications[identifier]
    }

    /// The number of notifications in the center.
    public var notificationCount: Int {
        apps.values.reduce(0) { $0 + $1.notifications.count }
    }

    /// The groups in center order: by leading notification, newest first.
    /// - Complexity: O(g) in the number of groups.
    public var groupIDs: [GroupID] {
        var result: [GroupID] = []
        result.reserveCapacity(groupCount)
        for entry in order.entries.reversed() where isLive(entry) {
            result.append(entry.group)
        }
        return result
    }

    /// Each group's id and how many notifications it holds, in center order.
    /// - Complexity: O(g) in the number of groups.
    public var groupSizes: [(id: String, count: Int)] {
        groupIDs.map { (id: $0.description, count: groupState($0)?.count ?? 0) }
    }

    /// The group a notification of this app with this content and identifier joins now.
    public func groupID(for content: NotificationContent, identifier: String, app: String) -> GroupID {
        let grouping = apps[app]?.registration.settings.grouping ?? .automatic
        return GroupID(app: app, kind: Self.groupKind(for: content, identifier: identifier, grouping: grouping))
    }

    /// The notifications of a group, newest first; empty for an unknown group.
    /// - Complexity: O(n) in the size of the group.
    public func notifications(in group: GroupID) -> [DeliveredNotification] {
        guard let state = apps[group.app], let members = state.groups[group.kind]?.members else { return [] }
        return members.reversed().map { state.notifications[slot: $0.slot] }
    }

    /// A group's leading notification: its newest.
    public func leadingNotification(of group: GroupID) -> DeliveredNotification? {
        guard let state = apps[group.app], let leading = state.groups[group.kind]?.leading else { return nil }
        return state.notifications[slot: leading.slot]
    }

    func groupState(_ group: GroupID) -> GroupState? {
        apps[group.app]?.groups[group.kind]
    }

    // MARK: Internals

    static func groupKind(for content: NotificationContent, identifier: String, grouping: Grouping) -> GroupID.Kind {
        switch grouping {
        case .automatic: content.threadIdentifier.isEmpty ? .app : .thread(content.threadIdentifier)
        case .byApp: .app
        case .off: .single(identifier)
        }
    }

    /// Records a group's change of leading notification in the center order.
    private mutating func applyLeadership(_ leadership: Leadership, group: GroupID) {
        if leadership.before == leadership.after { return }
        if let before = leadership.before { liveLeaders.remove(before.sequence) }
        if let after = leadership.after {
            liveLeaders.insert(after.sequence)
            order.recordLeading(after, of: group)
        }
        groupCount += (leadership.before == nil ? 1 : 0) - (leadership.after == nil ? 1 : 0)
    }

    private func isLive(_ entry: CenterOrder.Entry) -> Bool {
        liveLeaders.contains(entry.stamp.sequence)
    }

    private mutating func compactOrderIfNeeded() {
        guard order.needsCompaction(liveGroupCount: groupCount) else { return }
        order.compact { [liveLeaders] entry in liveLeaders.contains(entry.stamp.sequence) }
    }

    /// Rebuilds an app's groups after its grouping setting changed, and the center order with them.
    private mutating func regroupNotifications(of app: String) {
        guard let appIndex = apps.index(forKey: app) else { return }
        groupCount -= apps.values[appIndex].groups.count
        apps.values[appIndex].groups = [:]
        for (slot, notification) in apps.values[appIndex].notifications.occupied.sorted(by: { $0.notification.stamp < $1.notification.stamp }) {
            if apps.values[appIndex].attach(notification, slot: slot).1.before == nil { groupCount += 1 }
        }
        var leaders: [CenterOrder.Entry] = []
        liveLeaders = []
        for (name, appState) in apps {
            for (kind, group) in appState.groups {
                if let leading = group.leading {
                    leaders.append(CenterOrder.Entry(stamp: leading.stamp, group: GroupID(app: name, kind: kind)))
                    liveLeaders.insert(leading.stamp.sequence)
                }
            }
        }
        order.rebuild(from: leaders)
    }
}

extension Center {
    /// What a delivery changed.
    public struct Delivery: Sendable, Hashable {
        /// The notification as delivered, with its stamp.
        public var notification: DeliveredNotification
        /// The group it joined.
        public var group: GroupID
        /// The notification it replaced (same identifier), if any.
        public var replaced: DeliveredNotification?
        /// The group the replaced notification left.
        public var replacedGroup: GroupID?
    }

    /// A notification that left the center, and the group it left.
    public struct Removal: Sendable, Hashable {
        public var notification: DeliveredNotification
        public var group: GroupID
    }
}
