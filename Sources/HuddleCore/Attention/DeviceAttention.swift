public import Foundation

/// What the person's settings do to a device's notifications, kept beside its ``Center``: the notifications held
/// for a scheduled summary (in the center only once their summary comes), the summaries that came, and the ones
/// a Focus silenced. A value: a scenario plays it, and a device's owner would keep it as it keeps its center.
///
/// The rules are ``DeviceSettings/arrival``'s; what Apple leaves open is chosen in docs/summary-and-focus.md:
/// a held notification removed or replaced before its summary leaves it; an app taken out of the summary, or the
/// summary turned off, hands its held notifications to the center at once, quietly, with no summary card; a summary
/// with nothing held shows nothing.
public struct DeviceAttention: Sendable {
    /// A notification waiting for its summary.
    public struct Held: Sendable {
        public var app: String
        public var request: NotificationRequest
        /// When it arrived: the date it shows with once delivered.
        public var arrived: Date
        /// When its summary comes.
        public var until: Date
        /// Its place in arrival order.
        var sequence: UInt64
    }

    /// How many delivered summaries are kept (the newest is the one the Lock Screen shows).
    public static let keptSummaries = 12

    public var settings: DeviceSettings
    public internal(set) var held: [Held] = []
    /// The summaries that came, oldest first.
    public internal(set) var summaries: [ScheduledSummary] = []
    /// The Focus that silenced each notification, by app and identifier.
    var silenced: [ExactKey: String] = [:]
    private var arrivals: UInt64 = 0
    /// Whether held notifications carry their stored change numbers (a server's device, ``init(snapshot:)``): they
    /// reach the center with the stamps a store gives them, as a snapshot read later would have them. A scenario's
    /// reach it as new deliveries dated when they arrived.
    var keepsStoredStamps = false

    struct ExactKey: Hashable, Sendable {
        var app: String
        var identifier: ExactString

        init(_ app: String, _ identifier: String) {
            self.app = app
            self.identifier = ExactString(identifier)
        }
    }

    public init(settings: DeviceSettings) {
        self.settings = settings
    }

    /// The Focus that silenced a notification in the center, if one did.
    public func silencingFocus(app: String, identifier: String) -> String? {
        silenced[ExactKey(app, identifier)]
    }

    // MARK: Arriving

    /// A notification arrives at `date`: held, or handed to `center` as its arrival says. A notification with
    /// nothing to show goes to the center as ever (it leaves it unchanged).
    /// - Returns: what the device did with it.
    @discardableResult
    public mutating func receive(
        _ request: NotificationRequest, app: String, capabilities: AppCapabilities, at date: Date, into center: inout Center
    ) throws(CenterError) -> Arrival {
        guard let registration = center.registration(for: app) else { throw .unknownApp(app) }
        let arrival = settings.arrival(
            level: request.content.interruptionLevel, app: app, appSettings: registration.settings, capabilities: capabilities, at: date)
        // A new arrival with the identifier of one held replaces it, as it would in the center.
        dropHeld { $0.app == app && $0.request.identifier.isExactlyEqual(to: request.identifier) }
        silenced[ExactKey(app, request.identifier)] = nil
        guard request.content.isVisible else {
            try center.deliver(request, app: app, at: date)
            return arrival
        }
        arrivals += 1
        switch arrival.way {
        case .held(let until):
            // Held: a notification of this identifier shown before leaves the center, as a replacement would.
            try center.removeNotifications(withIdentifiers: [request.identifier], app: app)
            held.append(Held(app: app, request: request, arrived: date, until: until, sequence: arrivals))
        case .silenced(let focus):
            try center.deliver(request, app: app, at: date)
            silenced[ExactKey(app, request.identifier)] = focus
        case .immediately, .quietly:
            try center.deliver(request, app: app, at: date)
        }
        return arrival
    }

    /// Delivers every summary due by `date`, oldest first: each hands its held notifications to `center` in the
    /// order they arrived (so the newest leads its group), and is kept as the summary the Lock Screen shows.
    /// - Returns: the summaries that came.
    @discardableResult
    public mutating func deliverSummaries(dueBy date: Date, into center: inout Center) throws(CenterError) -> [ScheduledSummary] {
        var delivered: [ScheduledSummary] = []
        while let next = held.map(\.until).min(), next <= date {
            let due = held.filter { $0.until == next }.sorted { $0.sequence < $1.sequence }
            held.removeAll { $0.until == next }
            for notification in due {
                try handOver(notification, into: &center)
            }
            let parts = due.map {
                ScheduledSummary.Held(app: $0.app, identifier: $0.request.identifier, relevanceScore: $0.request.content.relevanceScore, sequence: $0.sequence)
            }
            if let summary = ScheduledSummary(held: parts, deliveredAt: next, timeZone: settings.clock) {
                delivered.append(summary)
                summaries.append(summary)
            }
        }
        if summaries.count > Self.keptSummaries { summaries.removeFirst(summaries.count - Self.keptSummaries) }
        return delivered
    }

    // MARK: Changing

    /// The settings change at `date`: held notifications that no summary holds any more (the summary turned off, or
    /// their app taken out of it) go to `center` at once, quietly; those still held wait for the new schedule.
    public mutating func change(settings newSettings: DeviceSettings, at date: Date, into center: inout Center) throws(CenterError) {
        settings = newSettings
        try releaseUnheld(into: &center)
    }

    /// An app's settings changed (``Center/setSettings(_:for:)`` first): if it left the summary, its held
    /// notifications go to `center` at once.
    public mutating func appSettingsChanged(at date: Date, into center: inout Center) throws(CenterError) {
        try releaseUnheld(into: &center)
    }

    /// Hands a held notification to the center, dated when it arrived.
    func handOver(_ notification: Held, into center: inout Center) throws(CenterError) {
        if keepsStoredStamps {
            let stamp = DeliveryStamp(date: notification.arrived, sequence: notification.sequence)
            try center.deliver(DeliveredNotification(app: notification.app, request: notification.request, stamp: stamp))
        } else {
            try center.deliver(notification.request, app: notification.app, at: notification.arrived)
        }
    }

    /// Hands the held notifications that no summary holds under the settings to `center`, and reschedules the rest.
    mutating func releaseUnheld(into center: inout Center) throws(CenterError) {
        let released = held.filter { notification in
            !settings.summary.isEnabled || center.registration(for: notification.app)?.settings.scheduledSummary != true
        }.sorted { $0.sequence < $1.sequence }
        guard !released.isEmpty else {
            rescheduleHeld()
            return
        }
        dropHeld { notification in released.contains { $0.sequence == notification.sequence } }
        for notification in released {
            try handOver(notification, into: &center)
        }
        rescheduleHeld()
    }

    /// The summary times changed: each held notification waits for the first new time at or after it arrived.
    private mutating func rescheduleHeld() {
        for index in held.indices {
            held[index].until = settings.summary.nextDelivery(atOrAfter: held[index].arrived, in: settings.clock)
        }
    }

    /// Removed before their summary (`removeDeliveredNotifications`): held notifications leave it too.
    public mutating func remove(app: String, identifiers: [String]) {
        let gone = Set(identifiers.map(ExactString.init))
        dropHeld { $0.app == app && gone.contains(ExactString($0.request.identifier)) }
        for identifier in identifiers { silenced[ExactKey(app, identifier)] = nil }
    }

    /// A whole app's (`removeAllDeliveredNotifications`).
    public mutating func removeAll(app: String) {
        dropHeld { $0.app == app }
        silenced = silenced.filter { $0.key.app != app }
    }

    /// A group cleared: the held notifications that would be in it go with it (`grouping` is the app's).
    public mutating func remove(group: GroupID, grouping: Grouping) {
        switch group.kind {
        case .app: dropHeld { $0.app == group.app && (grouping == .byApp || $0.request.content.threadIdentifier.isEmpty) }
        case .thread(let thread): dropHeld { $0.app == group.app && $0.request.content.threadIdentifier.isExactlyEqual(to: thread) }
        case .single(let identifier): dropHeld { $0.app == group.app && $0.request.identifier.isExactlyEqual(to: identifier) }
        }
    }

    mutating func dropHeld(where shouldDrop: (Held) -> Bool) {
        held.removeAll(where: shouldDrop)
    }
}
