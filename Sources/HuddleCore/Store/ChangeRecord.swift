/// A change as a database records it: what it was about, not a copy of it. The notification or app it
/// names is read back from its own table, so a change costs one small row.
public struct ChangeRecord: Sendable, Hashable {
    public enum Kind: String, Sendable {
        case delivered, removed, appSaved, appDeleted, event, activities, settings, summary
    }

    public var number: UInt64
    public var kind: Kind
    public var topic: String
    /// The notification delivered, or those removed; empty for app changes.
    public var identifiers: [String]
    /// For an `.event`, the event: unlike the other changes' subjects it has no table of its own, and the
    /// journal keeps it whole.
    public var event: DeviceEvent?
    /// For a `.summary`, the summary, kept whole in the journal like an event; its notifications are named in it.
    public var summary: ScheduledSummary?

    public init(
        number: UInt64, kind: Kind, topic: String, identifiers: [String] = [], event: DeviceEvent? = nil, summary: ScheduledSummary? = nil
    ) {
        self.number = number
        self.kind = kind
        self.topic = topic
        self.identifiers = identifiers
        self.event = event
        self.summary = summary
    }

    /// Reads a stored row back.
    /// - Parameter detailText: the event of an `.event` change, as ``DeviceEvent/detailText`` wrote it; the summary of
    ///   a `.summary`, as ``ScheduledSummary/storedText`` wrote it.
    /// - Throws: ``StoreError`` `.corrupt` for an unknown kind, unreadable identifiers or an unreadable event.
    public init(number: UInt64, kindName: String, topic: String, identifiersText: String, detailText: String? = nil) throws(StoreError) {
        guard let kind = Kind(rawValue: kindName) else { throw StoreError(.corrupt, "change \(number) has an unknown kind \"\(kindName)\"") }
        let identifiers: [String]
        do {
            identifiers = try JSONReader(try JSONParser.parse(identifiersText)).array().map { element throws(JSONReadError) in try element.string() }
        } catch {
            throw StoreError(.corrupt, "change \(number) has unreadable identifiers: \(error)")
        }
        var event: DeviceEvent?
        if kind == .event {
            guard let detailText else { throw StoreError(.corrupt, "change \(number) is an event without its detail") }
            event = try DeviceEvent(app: topic, number: number, detailText: detailText)
        }
        var summary: ScheduledSummary?
        if kind == .summary {
            guard let detailText else { throw StoreError(.corrupt, "change \(number) is a summary without its detail") }
            do {
                summary = try ScheduledSummary.stored(detailText, device: topic)
            } catch {
                throw StoreError(.corrupt, "change \(number) has an unreadable summary: \(error.message)")
            }
        }
        self.init(number: number, kind: kind, topic: topic, identifiers: identifiers, event: event, summary: summary)
    }

    /// What the journal's `detail` column holds: the event of an `.event` change, the summary of a `.summary`, else
    /// nothing.
    public var detailText: String? { event?.detailText ?? summary?.storedText }

    /// The identifiers as the databases store them: a JSON array.
    public var identifiersText: String {
        JSONValue.array(identifiers.map(JSONValue.string)).jsonText()
    }

    /// The change, its subject as it is now.
    /// - Parameters:
    ///   - notification: the stored notification with this change's number, if it is still there.
    ///   - app: the stored app of this change's topic, if it is still there.
    ///   - activities: the device's Live Activities as stored now (for an `.activities` change: a later one
    ///     that changed them again brings the same list).
    ///   - settings: the device's settings as stored now (for a `.settings` change, likewise).
    public func change(
        notification: DeliveredNotification?, app: AppRecord?, activities: [LiveActivity] = [], settings: DeviceSettings = .newDevice
    ) -> DeviceChange {
        switch kind {
        case .delivered:
            guard let notification, notification.stamp.sequence == number else { return DeviceChange(number: number, kind: .superseded) }
            return DeviceChange(number: number, kind: .delivered(notification))
        case .removed: return DeviceChange(number: number, kind: .removed(app: topic, identifiers: identifiers))
        case .appSaved: return DeviceChange(number: number, kind: app.map { .appSaved($0) } ?? .superseded)
        case .appDeleted: return DeviceChange(number: number, kind: .appDeleted(topic: topic))
        case .event: return DeviceChange(number: number, kind: event.map { .event($0) } ?? .superseded)
        case .activities: return DeviceChange(number: number, kind: .activities(activities))
        case .settings: return DeviceChange(number: number, kind: .settings(settings))
        case .summary: return DeviceChange(number: number, kind: summary.map { .summary($0) } ?? .superseded)
        }
    }
}

/// How many of each device's latest changes a store keeps for ``NotificationStore/changes(device:after:)``.
/// A server or a live stream further behind than this reloads a whole snapshot instead.
public struct ChangeRetention: Sendable, Hashable {
    public var changesPerDevice: UInt64

    public init(changesPerDevice: UInt64 = 10_000) {
        self.changesPerDevice = max(1, changesPerDevice)
    }

    /// Forgetting is done in steps of a tenth of the retention, so that most writes forget nothing.
    /// - Returns: the oldest change to keep once change `number` is recorded, when it is time to forget
    ///   older ones; else `nil`.
    public func oldestKept(afterRecording number: UInt64) -> UInt64? {
        let step = max(1, changesPerDevice / 10)
        guard number % step == 0, number > changesPerDevice else { return nil }
        return number - changesPerDevice + 1
    }
}
