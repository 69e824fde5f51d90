public import Foundation

/// What a page shows of the person's settings beside the stacks, its words in the viewer's language: the Focus that
/// is on, the latest summary as iOS presents it (its title, its count, the featured notifications, its apps), what
/// waits for the next summary, and what the Lock Screen's layout shows. Built from a device's
/// ``DeviceAttention`` and its center (``DeviceAttention/display(center:for:at:)``).
public struct DeviceDisplay: Sendable {
    /// A notification featured on top of a summary, as previews let it show.
    public struct Featured: Sendable, Hashable {
        public var app: String
        public var appName: String
        /// Its title and body as the viewer sees them; empty when hidden or no longer in the center.
        public var text: String
    }

    /// One app's line in a summary.
    public struct AppLine: Sendable, Hashable {
        public var app: String
        public var appName: String
        /// "3 notifications", in the viewer's language.
        public var countText: String
    }

    public struct Summary: Sendable, Hashable {
        public var title: String
        public var deliveredAt: Date
        /// "08:00": when it came, on the device's clock.
        public var timeText: String
        public var countText: String
        public var featured: [Featured]
        public var apps: [AppLine]
    }

    /// The name of the Focus that is on.
    public var focus: String?
    public var summary: Summary?
    /// How many notifications wait for the next summary ("2 notifications"), when it comes, and that time on the
    /// device's clock ("18:00"); `nil` for none.
    public var held: (countText: String, until: Date, timeText: String)?
    /// The layout of a locked device, and what Count shows ("4 Notifications").
    public var lockScreen: (layout: LockScreenLayout, countText: String)?
}

extension DeviceAttention {
    /// The device's part as a page shows it to `viewer` at `now`, read from `center` directly: the group sizes and the
    /// few notifications a summary features, not a rendering of the whole center. `nil` when the settings are not in
    /// play.
    public func display(center: Center, for viewer: Viewer, at now: Date) -> DeviceDisplay? {
        guard isInPlay else { return nil }
        let device = render(groups: center.groupSizes, for: viewer, at: now)
        var resolver = TextResolver(viewer: viewer)
        func appName(_ app: String) -> String {
            center.registration(for: app)?.visibleName ?? app.split(separator: ".").last.map(String.init) ?? app
        }
        let summary = device.summary.map { summary in
            DeviceDisplay.Summary(
                title: summary.title, deliveredAt: summary.deliveredAt,
                timeText: DeviceSettings.timeText(summary.deliveredAt, in: device.timeZone), countText: resolver.countText(summary.count),
                featured: summary.featured.map { featured in
                    // As previews let it show, and empty once it left the center.
                    let shown = center.notification(featured.identifier, app: featured.app).flatMap { center.render(notification: $0, for: viewer) }
                    let text = [shown?.title, shown?.body].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": ")
                    return DeviceDisplay.Featured(app: featured.app, appName: appName(featured.app), text: text)
                },
                apps: summary.apps.map { DeviceDisplay.AppLine(app: $0.app, appName: appName($0.app), countText: resolver.countText($0.identifiers.count)) })
        }
        let held = device.held.map(\.until).min().map { until in
            (countText: resolver.countText(device.held.count { $0.until == until }), until: until,
             timeText: DeviceSettings.timeText(until, in: device.timeZone))
        }
        let lockScreen = device.lockScreen.map { (layout: $0.layout, countText: resolver.placeholderText($0.notificationCount)) }
        return DeviceDisplay(focus: device.focus.flatMap { $0.isActive ? $0.name : nil }, summary: summary, held: held, lockScreen: lockScreen)
    }
}
