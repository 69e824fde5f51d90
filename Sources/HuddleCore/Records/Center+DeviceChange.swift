extension Center {
    /// Applies one committed change of a device (a store has numbered it), as every server sharing the store
    /// applies it.
    ///
    /// A change cannot fail once committed: a stored app that today's rules refuse is left out with its
    /// notifications, as ``loading(_:)`` leaves it out, and reported in ``CenterUpdate/refusal``.
    public mutating func apply(_ change: DeviceChange) -> CenterUpdate {
        var update = CenterUpdate(number: change.number)
        switch change.kind {
        case .delivered(let notification):
            // An app removed after the notification was committed: nothing to deliver it to.
            guard let delivery = try? deliver(notification) else { break }
            update.groups = [delivery.group]
            if let replaced = delivery.replaced, let replacedGroup = delivery.replacedGroup {
                update.groups.insert(replacedGroup)
                update.groupEvents.append((replacedGroup, .removed(replaced)))
            }
            update.groupEvents.append((delivery.group, .delivered(delivery.notification)))
            update.delivered = [notification.identifier]
        case .removed(let app, let identifiers):
            let removals = (try? removeNotifications(withIdentifiers: identifiers, app: app)) ?? []
            update.record(removals)
        case .appSaved(let app):
            update.changesEverything = true
            let before = registration(for: app.topic)
            // Moving notifications between groups is rare and costs a copy of the center, to compare.
            let previous: Center? = before.map { $0.settings.grouping != app.settings.grouping } == true ? self : nil
            do {
                try install(app)
            } catch {
                update.refusal = "app \(app.topic) is left out: \(error)"
                update.record(unregister(app: app.topic))
                break
            }
            if let previous {
                let groups = Set(previous.groupIDs(of: app.topic) + groupIDs(of: app.topic))
                update.groupEvents = Self.groupEvents(from: previous, to: self, in: groups)
            }
        case .appDeleted(let topic):
            update.record(unregister(app: topic))
        case .superseded, .event, .activities, .settings, .summary:
            // Events, Live Activities, the device's settings and its summaries show nothing in the center by themselves;
            // the device's live layer keeps and streams them (``DeviceAttention/apply(_:to:)`` for the last two).
            break
        }
        return update
    }

    /// What the watchers of some groups hear when a center is replaced by another (read again from storage,
    /// or regrouped): for each group, what left it, then what arrived, oldest first.
    public static func groupEvents(
        from old: Center, to new: Center, in groups: some Sequence<GroupID>
    ) -> [(group: GroupID, event: GroupEvent)] {
        var events: [(group: GroupID, event: GroupEvent)] = []
        for group in groups {
            let before = old.notifications(in: group)
            let after = new.notifications(in: group)
            let beforeStamps = Set(before.map(\.stamp))
            let afterStamps = Set(after.map(\.stamp))
            for notification in before.reversed() where !afterStamps.contains(notification.stamp) {
                events.append((group, .removed(notification)))
            }
            for notification in after.reversed() where !beforeStamps.contains(notification.stamp) {
                events.append((group, .delivered(notification)))
            }
        }
        return events
    }

    /// The groups of one app, in no particular order.
    func groupIDs(of app: String) -> [GroupID] {
        apps[app]?.groups.keys.map { GroupID(app: app, kind: $0) } ?? []
    }
}

extension CenterUpdate {
    fileprivate mutating func record(_ removals: [Center.Removal]) {
        for removal in removals {
            groups.insert(removal.group)
            removed.append(removal.notification.identifier)
            groupEvents.append((removal.group, .removed(removal.notification)))
        }
    }
}
