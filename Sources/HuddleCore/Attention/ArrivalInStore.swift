public import Foundation

extension Arrival {
    /// What a store keeps of it.
    public var mark: ArrivalMark {
        switch way {
        case .held: .held
        case .silenced(let focus): .silenced(focus: focus)
        case .immediately, .quietly: .shown
        }
    }
}

extension DeviceSettings {
    /// Whether these settings can change where a notification goes (a summary or a Focus is on): without, every
    /// notification is shown as it came, and a store deciding an arrival need not read the app's settings.
    public var decidesArrivals: Bool {
        summary.isEnabled || focus.mode != .off
    }

    /// Whether an app's notifications wait for the summary under these settings: the summary on, and the app in it.
    public func holds(appSettings: AppSettings) -> Bool {
        summary.isEnabled && appSettings.scheduledSummary
    }

    /// What the device did with a notification, as its events and the request inspector say it: "held for the 08:00
    /// summary", "silenced by the Work Focus"; `nil` for one shown as it came.
    public func note(for mark: ArrivalMark, arrivedAt date: Date) -> String? {
        switch mark {
        case .shown: nil
        case .held: "held for the \(Self.timeText(summary.nextDelivery(atOrAfter: date, in: clock), in: clock)) summary"
        case .silenced(let focus): "silenced by the \(focus) Focus"
        }
    }

    /// What a store keeps for a notification arriving at `date`, decided in the transaction that stores it.
    public func mark(for request: NotificationRequest, app: String, appSettings: AppSettings, capabilities: AppCapabilities, at date: Date) -> ArrivalMark {
        guard decidesArrivals, request.content.isVisible else { return .shown }
        return arrival(level: request.content.interruptionLevel, app: app, appSettings: appSettings, capabilities: capabilities, at: date).mark
    }
}

extension ScheduledSummary {
    /// The summaries due by `date` among a device's held notifications (each with its arrival), oldest first: those
    /// held for one summary time go together. What every store's ``NotificationStore/deliverSummaries(device:dueBy:)``
    /// computes in its transaction.
    /// - Parameter dueBy: `nil` delivers the next summary whenever it is due (the device API's "deliver now").
    public static func due(
        _ held: [(notification: Held, arrived: Date)], settings: DeviceSettings, dueBy date: Date?
    ) -> [ScheduledSummary] {
        var byTime: [Date: [Held]] = [:]
        for (notification, arrived) in held {
            byTime[settings.summary.nextDelivery(atOrAfter: arrived, in: settings.clock), default: []].append(notification)
        }
        let times = byTime.keys.sorted()
        let dueTimes = date.map { limit in times.filter { $0 <= limit } } ?? Array(times.prefix(1))
        return dueTimes.compactMap { ScheduledSummary(held: byTime[$0] ?? [], deliveredAt: $0, timeZone: settings.clock) }
    }

    /// Every notification it holds, by app.
    public var notifications: [(app: String, identifier: String)] {
        apps.flatMap { part in part.identifiers.map { (part.app, $0) } }
    }
}

extension DeliveredNotification {
    /// The same notification with another mark (held no more).
    public func marked(_ mark: ArrivalMark) -> DeliveredNotification {
        DeliveredNotification(app: app, request: request, stamp: stamp, mark: mark)
    }

    /// What a summary needs to know of it.
    public var heldInSummary: ScheduledSummary.Held {
        ScheduledSummary.Held(app: app, identifier: identifier, relevanceScore: content.relevanceScore, sequence: stamp.sequence)
    }
}
