public import Foundation

/// A center shared by concurrent callers, with live subscriptions to its groups.
///
/// A subscriber to a group behaves as a notification content extension does on iOS (behavior.md section
/// 8): it first receives the group's leading notification, then every notification later delivered to
/// the group and every removal from it, in the order they happen.
public actor LiveCenter {
    public private(set) var center: Center
    private var subscribers: [GroupID: [Int: AsyncStream<GroupEvent>.Continuation]] = [:]
    private var nextSubscriberID = 0

    public init(center: Center = Center()) {
        self.center = center
    }

    // MARK: Changing

    public func register(_ registration: AppRegistration) throws(CenterError) {
        try regrouping(app: registration.bundleIdentifier) { center throws(CenterError) in try center.register(registration) }
    }

    public func setCategories(_ categories: [NotificationCategory], for app: String) throws(CenterError) {
        try center.setCategories(categories, for: app)
    }

    public func setSettings(_ settings: AppSettings, for app: String) throws(CenterError) {
        try regrouping(app: app) { center throws(CenterError) in try center.setSettings(settings, for: app) }
    }

    @discardableResult
    public func deliver(_ request: NotificationRequest, app: String, at date: Date) throws(CenterError) -> Center.Delivery? {
        publish(try center.deliver(request, app: app, at: date))
    }

    /// Takes the next delivery stamp (see ``Center/makeStamp(at:)``).
    public func makeStamp(at date: Date) -> DeliveryStamp {
        center.makeStamp(at: date)
    }

    /// Delivers a notification that already has its stamp (see ``Center/deliver(_:)``).
    @discardableResult
    public func deliver(_ notification: DeliveredNotification) throws(CenterError) -> Center.Delivery? {
        publish(try center.deliver(notification))
    }

    @discardableResult
    public func removeNotifications(withIdentifiers identifiers: [String], app: String) throws(CenterError) -> [Center.Removal] {
        publish(try center.removeNotifications(withIdentifiers: identifiers, app: app))
    }

    @discardableResult
    public func removeGroup(_ group: GroupID) throws(CenterError) -> [Center.Removal] {
        publish(try center.removeGroup(group))
    }

    @discardableResult
    public func removeAllNotifications(app: String) throws(CenterError) -> [Center.Removal] {
        publish(try center.removeAllNotifications(app: app))
    }

    // MARK: Reading

    public func render(for viewer: Viewer, options: RenderOptions = RenderOptions()) -> RenderedCenter {
        center.render(for: viewer, options: options)
    }

    /// Subscribes to a group: the leading notification first (if the group has one now), then its later
    /// deliveries and removals. The stream ends when the subscriber stops iterating.
    public func subscribe(to group: GroupID) -> AsyncStream<GroupEvent> {
        let (stream, continuation) = AsyncStream<GroupEvent>.makeStream(bufferingPolicy: .unbounded)
        if let leading = center.leadingNotification(of: group) {
            continuation.yield(.leading(leading))
        }
        let id = nextSubscriberID
        nextSubscriberID += 1
        subscribers[group, default: [:]][id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id, from: group) }
        }
        return stream
    }

    /// The number of open subscriptions to a group (for tests and metrics).
    public func subscriberCount(of group: GroupID) -> Int {
        subscribers[group]?.count ?? 0
    }

    // MARK: Internals

    private func unsubscribe(_ id: Int, from group: GroupID) {
        subscribers[group]?[id] = nil
        if subscribers[group]?.isEmpty == true { subscribers[group] = nil }
    }

    private func publish(_ event: GroupEvent, to group: GroupID) {
        guard let continuations = subscribers[group] else { return }
        for continuation in continuations.values { continuation.yield(event) }
    }

    private func publish(_ delivery: Center.Delivery?) -> Center.Delivery? {
        guard let delivery else { return nil }
        if let replaced = delivery.replaced, let group = delivery.replacedGroup {
            publish(.removed(replaced), to: group)
        }
        publish(.delivered(delivery.notification), to: delivery.group)
        return delivery
    }

    private func publish(_ removals: [Center.Removal]) -> [Center.Removal] {
        for removal in removals { publish(.removed(removal.notification), to: removal.group) }
        return removals
    }

    /// Runs a change that may regroup an app's notifications, and tells each subscribed group of that app
    /// which notifications left it and which arrived.
    private func regrouping(app: String, _ change: (inout Center) throws(CenterError) -> Void) throws(CenterError) {
        let watched = subscribers.keys.filter { $0.app == app }
        let before = Dictionary(uniqueKeysWithValues: watched.map { ($0, center.notifications(in: $0)) })
        try change(&center)
        for group in watched {
            let old = before[group] ?? []
            let new = center.notifications(in: group)
            let oldStamps = Set(old.map(\.stamp))
            let newStamps = Set(new.map(\.stamp))
            for notification in old.reversed() where !newStamps.contains(notification.stamp) {
                publish(.removed(notification), to: group)
            }
            for notification in new.reversed() where !oldStamps.contains(notification.stamp) {
                publish(.delivered(notification), to: group)
            }
        }
    }
}

/// What a group subscriber hears.
public enum GroupEvent: Sendable, Hashable {
    /// The group's leading notification at the time of subscribing.
    case leading(DeliveredNotification)
    /// A notification delivered to the group (it now leads it, unless its date is older).
    case delivered(DeliveredNotification)
    /// A notification removed from the group (dismissed, cleared, replaced or regrouped away).
    case removed(DeliveredNotification)
}
