public import Foundation
import Synchronization

/// A center shared by concurrent callers, with live subscriptions to its groups.
///
/// A subscriber to a group behaves as a notification content extension does on iOS (behavior.md section
/// 8): it first receives the group's leading notification, then every notification later delivered to
/// the group and every removal from it, in the order they happen.
///
/// Calls are synchronous and serialized by a lock, so that an owner (the server's device session, an
/// actor) can change the center and tell subscribers in one step, without an `await` in between that
/// would let another change overtake it.
public final class LiveCenter: Sendable {
    fileprivate struct State {
        var center: Center
        var subscribers: [GroupID: [Int: AsyncStream<GroupEvent>.Continuation]] = [:]
        var nextSubscriberID = 0
    }

    private let state: Mutex<State>

    public init(center: Center = Center()) {
        state = Mutex(State(center: center))
    }

    // MARK: Changing

    public func register(_ registration: AppRegistration) throws(CenterError) {
        try regrouping(app: registration.bundleIdentifier) { center throws(CenterError) in try center.register(registration) }
    }

    /// Installs a stored app (see ``Center/install(_:)``); its files are read before the lock is taken.
    public func install(_ app: AppRecord) throws {
        try register(try AppRegistration(record: app))
    }

    /// Replaces the whole center (with one read again from storage), telling each subscriber what left
    /// its group and what arrived.
    public func replaceCenter(with center: Center) {
        regrouping(app: nil) { $0 = center }
    }

    /// Forgets an app with its notifications.
    @discardableResult
    public func unregister(app: String) -> [Center.Removal] {
        state.withLock { state in
            let removals = state.center.unregister(app: app)
            state.publish(removals)
            return removals
        }
    }

    public func setCategories(_ categories: [NotificationCategory], for app: String) throws(CenterError) {
        try state.withLock { state throws(CenterError) in try state.center.setCategories(categories, for: app) }
    }

    public func setSettings(_ settings: AppSettings, for app: String) throws(CenterError) {
        try regrouping(app: app) { center throws(CenterError) in try center.setSettings(settings, for: app) }
    }

    @discardableResult
    public func deliver(_ request: NotificationRequest, app: String, at date: Date) throws(CenterError) -> Center.Delivery? {
        try state.withLock { state throws(CenterError) in
            // Changed before it is published: `state.publish(try state.center.deliver(…))` would copy the state
            // to pass it as `publish`'s self, and the delivery would then copy the whole center.
            let delivery = try state.center.deliver(request, app: app, at: date)
            return state.publish(delivery)
        }
    }

    /// Delivers a notification that already has its stamp (see ``Center/deliver(_:)``).
    @discardableResult
    public func deliver(_ notification: DeliveredNotification) throws(CenterError) -> Center.Delivery? {
        try state.withLock { state throws(CenterError) in
            let delivery = try state.center.deliver(notification)
            return state.publish(delivery)
        }
    }

    @discardableResult
    public func removeNotifications(withIdentifiers identifiers: [String], app: String) throws(CenterError) -> [Center.Removal] {
        try state.withLock { state throws(CenterError) in
            let removals = try state.center.removeNotifications(withIdentifiers: identifiers, app: app)
            state.publish(removals)
            return removals
        }
    }

    @discardableResult
    public func removeGroup(_ group: GroupID) throws(CenterError) -> [Center.Removal] {
        try state.withLock { state throws(CenterError) in
            let removals = try state.center.removeGroup(group)
            state.publish(removals)
            return removals
        }
    }

    @discardableResult
    public func removeAllNotifications(app: String) throws(CenterError) -> [Center.Removal] {
        try state.withLock { state throws(CenterError) in
            let removals = try state.center.removeAllNotifications(app: app)
            state.publish(removals)
            return removals
        }
    }

    // MARK: Reading

    public func render(for viewer: Viewer, options: RenderOptions = RenderOptions()) -> RenderedCenter {
        read { $0.render(for: viewer, options: options) }
    }

    /// Reads the center under the lock. The center must not escape `body`: a copy kept past the next
    /// change would make that change copy the whole center.
    public func read<Value>(_ body: (borrowing Center) -> Value) -> Value {
        state.withLock { state in body(state.center) }
    }

    /// Subscribes to a group: the leading notification first (if the group has one now), then its later
    /// deliveries and removals. The stream ends when the subscriber stops iterating.
    public func subscribe(to group: GroupID) -> AsyncStream<GroupEvent> {
        let (stream, continuation) = AsyncStream<GroupEvent>.makeStream(bufferingPolicy: .unbounded)
        let id = state.withLock { state in
            if let leading = state.center.leadingNotification(of: group) {
                continuation.yield(.leading(leading))
            }
            let id = state.nextSubscriberID
            state.nextSubscriberID += 1
            state.subscribers[group, default: [:]][id] = continuation
            return id
        }
        // Called when the subscriber stops (never while the lock is held: nothing here finishes a stream).
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { state in
                state.subscribers[group]?[id] = nil
                if state.subscribers[group]?.isEmpty == true { state.subscribers[group] = nil }
            }
        }
        return stream
    }

    /// Whether any group has an open subscription.
    public var hasSubscribers: Bool {
        state.withLock { !$0.subscribers.isEmpty }
    }

    /// The number of open subscriptions to a group (for tests and metrics).
    public func subscriberCount(of group: GroupID) -> Int {
        state.withLock { $0.subscribers[group]?.count ?? 0 }
    }

    // MARK: Internals

    /// Runs a change that may regroup an app's notifications (any app's, for `nil`), and tells each
    /// subscribed group of that app which notifications left it and which arrived.
    private func regrouping<Failure: Error>(app: String?, _ change: (inout Center) throws(Failure) -> Void) throws(Failure) {
        try state.withLock { state throws(Failure) in
            let watched = state.subscribers.keys.filter { app == nil || $0.app == app }
            let before = Dictionary(uniqueKeysWithValues: watched.map { ($0, state.center.notifications(in: $0)) })
            try change(&state.center)
            for group in watched {
                let old = before[group] ?? []
                let new = state.center.notifications(in: group)
                let oldStamps = Set(old.map(\.stamp))
                let newStamps = Set(new.map(\.stamp))
                for notification in old.reversed() where !newStamps.contains(notification.stamp) {
                    state.publish(.removed(notification), to: group)
                }
                for notification in new.reversed() where !oldStamps.contains(notification.stamp) {
                    state.publish(.delivered(notification), to: group)
                }
            }
        }
    }
}

extension LiveCenter.State {
    fileprivate func publish(_ event: GroupEvent, to group: GroupID) {
        guard let continuations = subscribers[group] else { return }
        for continuation in continuations.values { continuation.yield(event) }
    }

    fileprivate func publish(_ delivery: Center.Delivery?) -> Center.Delivery? {
        guard let delivery else { return nil }
        if let replaced = delivery.replaced, let group = delivery.replacedGroup {
            publish(.removed(replaced), to: group)
        }
        publish(.delivered(delivery.notification), to: delivery.group)
        return delivery
    }

    fileprivate func publish(_ removals: [Center.Removal]) {
        for removal in removals { publish(.removed(removal.notification), to: removal.group) }
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
