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

extension ArrivalMark {
    /// The Focus named by a stored row's `silenced_by` column, or the held flag: how every store writes a mark in
    /// two columns (`held`: 1 or NULL, `silenced_by`: the Focus's name or NULL), so that a held row is found by an
    /// index on `held` alone.
    public init(held: Bool, silencedBy focus: String?) {
        if held {
            self = .held
        } else if let focus {
            self = .silenced(focus: focus)
        } else {
            self = .shown
        }
    }

    /// The `held` column: 1, or NULL.
    public var heldColumn: Int64? {
        self == .held ? 1 : nil
    }

    /// The `silenced_by` column: the Focus's name, or NULL.
    public var silencedByColumn: String? {
        if case .silenced(let focus) = self { focus } else { nil }
    }
}

/// A device holding notifications for its scheduled summary, as a summary service finds it: the arrival of its oldest
/// held notification, which the earliest summary holds, and its settings, unless the service said it knows them as of
/// the device's last change (``NotificationStore/holdingDevices(knowingSettingsAsOf:)``).
public struct HoldingDevice: Sendable, Hashable {
    public var token: String
    public var oldestHeld: Date
    /// The number of the device's last change: the settings are those stored with it (every change of settings is
    /// a change of the device).
    public var lastChange: UInt64
    /// Its settings; `nil` when the service knew them as of ``lastChange`` already.
    public var settings: DeviceSettings?

    public init(token: String, oldestHeld: Date, lastChange: UInt64, settings: DeviceSettings?) {
        self.token = token
        self.oldestHeld = oldestHeld
        self.lastChange = lastChange
        self.settings = settings
    }

    /// When its next summary comes under `settings`: the first summary time at or after its oldest held notification.
    public func nextSummary(under settings: DeviceSettings) -> Date {
        settings.summary.nextDelivery(atOrAfter: oldestHeld, in: settings.clock)
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

    /// The summary as a store keeps it (the device's latest, and in the change that delivered it).
    public var storedText: String {
        JSONValue.object(JSONObject([
            ("deliveredAt", .integer(deliveredAt.milliseconds)),
            ("period", .string(period.rawValue)),
            ("count", .integer(Int64(count))),
            ("featured", .array(featured.map { .array([.string($0.app), .string($0.identifier)]) })),
            ("apps", .array(apps.map { part in .array([.string(part.app)] + part.identifiers.map(JSONValue.string)) })),
        ])).jsonText()
    }

    /// A summary read back from a store.
    /// - Throws: ``StoreError`` `.corrupt` naming the device, for text that is not a summary.
    public static func stored(_ text: String, device token: String) throws(StoreError) -> ScheduledSummary {
        do {
            let reader = JSONReader(try JSONParser.parse(text))
            guard let period = Period(rawValue: try reader.member("period").string()) else {
                throw try reader.member("period").failure("unknown period")
            }
            let featured = try reader.member("featured").array().map { pair throws(JSONReadError) in
                let parts = try pair.array()
                guard parts.count == 2 else { throw pair.failure("expected [app, identifier]") }
                return Featured(app: try parts[0].string(), identifier: try parts[1].string())
            }
            let apps = try reader.member("apps").array().map { part throws(JSONReadError) in
                let parts = try part.array()
                guard let first = parts.first else { throw part.failure("expected [app, identifier…]") }
                return AppPart(app: try first.string(), identifiers: try parts.dropFirst().map { element throws(JSONReadError) in try element.string() })
            }
            return ScheduledSummary(
                deliveredAt: Date(milliseconds: Int64(try reader.member("deliveredAt").integer())), period: period, featured: featured,
                apps: apps, count: try reader.member("count").integer())
        } catch {
            throw StoreError(.corrupt, "a summary of device \(token) cannot be read: \(error)")
        }
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
