extension Center {
    /// One app's part of a center: its registration, its notifications by identifier, and its groups.
    ///
    /// Changes happen here, in place, after the center has looked the app up once.
    struct AppState: Sendable {
        var registration: AppRegistration
        var notifications = NotificationTable()
        var groups: [GroupID.Kind: GroupState] = [:]

        init(registration: AppRegistration) {
            self.registration = registration
        }

        /// What a delivery changed inside the app.
        struct DeliveryChange {
            var kind: GroupID.Kind
            var leadership: Leadership
            var replaced: DeliveredNotification?
            var replacedKind: GroupID.Kind?
            var replacedLeadership = Leadership(before: nil, after: nil)
        }

        /// What removing one notification changed inside the app.
        struct RemovalChange {
            var notification: DeliveredNotification
            var kind: GroupID.Kind
            var leadership: Leadership
        }

        mutating func deliver(_ notification: DeliveredNotification) -> DeliveryChange {
            var change = DeliveryChange(kind: .app, leadership: Leadership(before: nil, after: nil))
            let (slot, replaced) = notifications.upsert(notification)
            if let replaced {
                let detached = detach(replaced)
                change.replaced = replaced
                change.replacedKind = detached.kind
                change.replacedLeadership = detached.leadership
            }
            (change.kind, change.leadership) = attach(notification, slot: slot)
            return change
        }

        mutating func remove(identifier: String) -> RemovalChange? {
            guard let notification = notifications.remove(identifier: identifier) else { return nil }
            let detached = detach(notification)
            return RemovalChange(notification: notification, kind: detached.kind, leadership: detached.leadership)
        }

        func kind(of notification: DeliveredNotification) -> GroupID.Kind {
            Center.groupKind(for: notification.content, identifier: notification.identifier, grouping: registration.settings.grouping)
        }

        /// Puts a notification (already in `notifications`, at `slot`) into its group.
        mutating func attach(_ notification: DeliveredNotification, slot: Int) -> (GroupID.Kind, Leadership) {
            let kind = kind(of: notification)
            if let index = groups.index(forKey: kind) {
                let before = groups.values[index].leading?.stamp
                groups.values[index].insert(notification, slot: slot)
                return (kind, Leadership(before: before, after: groups.values[index].leading?.stamp))
            }
            var group = GroupState()
            group.insert(notification, slot: slot)
            groups[kind] = group
            return (kind, Leadership(before: nil, after: notification.stamp))
        }

        /// Takes a notification (already gone from `notifications`) out of its group.
        private mutating func detach(_ notification: DeliveredNotification) -> (kind: GroupID.Kind, leadership: Leadership) {
            let kind = kind(of: notification)
            guard let index = groups.index(forKey: kind) else { return (kind, Leadership(before: nil, after: nil)) }
            let before = groups.values[index].leading?.stamp
            groups.values[index].remove(notification)
            let after = groups.values[index].leading?.stamp
            if after == nil { groups.remove(at: index) }
            return (kind, Leadership(before: before, after: after))
        }
    }

    /// A group's leading notification before and after a change; `nil` when the group did not exist.
    struct Leadership: Equatable {
        var before: DeliveryStamp?
        var after: DeliveryStamp?
    }
}
