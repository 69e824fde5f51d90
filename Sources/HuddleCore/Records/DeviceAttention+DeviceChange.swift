/// A device a store keeps: its person's settings loaded from its snapshot, and each committed change followed.
extension DeviceAttention {
    /// What the settings of a device a store keeps hold: its held notifications (which ``Center/loading(_:)`` leaves
    /// out), the Focus that silenced each silenced one, and its latest summary. Where each notification went was
    /// decided when it was stored (``ArrivalMark``); this follows those decisions, it does not make them again.
    public init(snapshot: DeviceSnapshot) {
        self.init(settings: snapshot.settings)
        keepsStoredStamps = true
        for notification in snapshot.notifications {
            switch notification.mark {
            case .held: hold(notification)
            case .silenced(let focus): silenced[ExactKey(notification.app, notification.identifier)] = focus
            case .shown: break
            }
        }
        if let summary = snapshot.summary { summaries = [summary] }
    }

    private mutating func hold(_ notification: DeliveredNotification) {
        held.append(Held(
            app: notification.app, request: notification.request, arrived: notification.date,
            until: settings.summary.nextDelivery(atOrAfter: notification.date, in: settings.clock), sequence: notification.stamp.sequence))
    }

    /// Applies one committed change of a stored device to `center` and beside it, as every server sharing the store
    /// applies it: a held notification waits here, a summary hands its notifications to the center, new settings or an
    /// app taken out of the summary hand over what no summary holds any more (as the store did in the change's
    /// transaction).
    public mutating func apply(_ change: DeviceChange, to center: inout Center) -> CenterUpdate {
        switch change.kind {
        case .delivered(let notification) where notification.mark == .shown && held.isEmpty && silenced.isEmpty:
            // The common case, a device whose settings touched nothing: the center's alone.
            return center.apply(change)
        case .removed where held.isEmpty && silenced.isEmpty:
            return center.apply(change)
        case .delivered(let notification):
            dropHeld { $0.app == notification.app && $0.request.identifier.isExactlyEqual(to: notification.identifier) }
            let key = ExactKey(notification.app, notification.identifier)
            silenced[key] = nil
            switch notification.mark {
            case .shown:
                return center.apply(change)
            case .silenced(let focus):
                // Its mark is in its group's rendering, which the delivery touches.
                silenced[key] = focus
                return center.apply(change)
            case .held:
                // One of its identifier shown before leaves the center, as a replacement would.
                var update = center.apply(
                    DeviceChange(number: change.number, kind: .removed(app: notification.app, identifiers: [notification.identifier])))
                hold(notification)
                update.changesDevice = true
                return update
            }
        case .removed(let app, let identifiers):
            let heldBefore = held.count
            remove(app: app, identifiers: identifiers)
            var update = center.apply(change)
            update.changesDevice = held.count != heldBefore
            return update
        case .appDeleted(let topic):
            removeAll(app: topic)
            return center.apply(change)
        case .appSaved:
            let update = center.apply(change)
            try? releaseUnheld(into: &center)
            return update
        case .settings(let newSettings):
            var update = center.apply(change)
            settings = newSettings
            try? releaseUnheld(into: &center)
            update.changesEverything = true
            return update
        case .summary(let summary):
            var update = center.apply(change)
            let named = Set(summary.notifications.map { ExactKey($0.app, $0.identifier) })
            let arriving = held.filter { named.contains(ExactKey($0.app, $0.request.identifier)) }.sorted { $0.sequence < $1.sequence }
            dropHeld { named.contains(ExactKey($0.app, $0.request.identifier)) }
            for notification in arriving { try? handOver(notification, into: &center) }
            summaries.append(summary)
            if summaries.count > Self.keptSummaries { summaries.removeFirst(summaries.count - Self.keptSummaries) }
            update.changesEverything = true
            return update
        case .event, .activities, .superseded:
            return center.apply(change)
        }
    }
}
