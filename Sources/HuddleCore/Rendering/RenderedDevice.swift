public import Foundation

/// What the person's settings add to a rendered center (``DeviceAttention``): the Focus that is on, the latest
/// scheduled summary, the notifications held for the next one, and what the Lock Screen shows in its layout. Its
/// JSON is the rendered center's `device` member, present only for a device whose settings are in play.
public struct RenderedDevice: Sendable, Hashable {
    public struct Focus: Sendable, Hashable {
        public var name: String
        public var isActive: Bool
    }

    /// A scheduled summary as it shows: its title in the viewer's language, then its featured notifications and
    /// its apps, in the summary's order.
    public struct Summary: Sendable, Hashable {
        public var title: String
        public var deliveredAt: Date
        public var count: Int
        public var featured: [ScheduledSummary.Featured]
        public var apps: [ScheduledSummary.AppPart]
    }

    /// A notification held for a summary: which, and until when (its content shows only then).
    public struct Held: Sendable, Hashable {
        public var app: String
        public var identifier: String
        public var until: Date
    }

    /// The Focus of the settings, whether on or not; `nil` for none set.
    public var focus: Focus?
    /// The latest summary that came.
    public var summary: Summary?
    /// In the order they arrived.
    public var held: [Held]
    /// What the Lock Screen shows, for a locked viewer; `nil` when unlocked.
    public var lockScreen: LockScreenView?
    /// The device's clock, which its summary times read.
    public var timeZone = TimeZone(secondsFromGMT: 0)!
}

extension DeviceAttention {
    /// The device's part of the rendering for `viewer` at `now` (a Focus on a schedule is on or not by then).
    public func render(center: RenderedCenter, for viewer: Viewer, at now: Date) -> RenderedDevice {
        render(groups: center.groups.map { (id: $0.id, count: $0.count) }, for: viewer, at: now)
    }

    /// Whether the device's settings are in play: set apart from a new device's, or holding what they did
    /// (held notifications, a summary that came). A rendering has a `device` member only then.
    public var isInPlay: Bool {
        settings != .newDevice || !held.isEmpty || !summaries.isEmpty
    }

    /// The device's part of the rendering, given each group's id and size in center order.
    public func render(groups: [(id: String, count: Int)], for viewer: Viewer, at now: Date) -> RenderedDevice {
        let focus = settings.focus.mode == .off ? nil
            : RenderedDevice.Focus(name: settings.focus.name, isActive: settings.focus.isActive(at: now, in: settings.clock))
        let summary = summaries.last.map { $0.rendered(languages: viewer.languages) }
        return RenderedDevice(
            focus: focus, summary: summary,
            held: held.map { RenderedDevice.Held(app: $0.app, identifier: $0.request.identifier, until: $0.until) },
            lockScreen: viewer.locked ? LockScreenView(layout: settings.lockScreen, counts: groups) : nil, timeZone: settings.clock)
    }

    /// `center` with the device's part and each silenced notification's Focus.
    public func decorate(_ center: RenderedCenter, for viewer: Viewer, at now: Date) -> RenderedCenter {
        var center = center
        center.groups = center.groups.map(marking)
        center.device = render(center: center, for: viewer, at: now)
        return center
    }

    /// `group` with each silenced notification's Focus.
    public func marking(_ group: RenderedGroup) -> RenderedGroup {
        guard !silenced.isEmpty else { return group }
        var group = group
        for index in group.notifications.indices {
            group.notifications[index].silencedBy = silencingFocus(app: group.app, identifier: group.notifications[index].id)
        }
        return group
    }
}

extension RenderedDevice {
    /// `{"focus": {"name", "active"} | null, "summary": {…} | null, "held": [{"app", "id", "until"}], "lockScreen": {…} | null}`.
    public var json: JSONValue {
        .object(JSONObject([
            ("focus", focus.map { .object(JSONObject([("name", .string($0.name)), ("active", .bool($0.isActive))])) } ?? .null),
            ("summary", summary.map(\.json) ?? .null),
            ("held", .array(held.map { held in
                .object(JSONObject([("app", .string(held.app)), ("id", .string(held.identifier)), ("until", .string(ISO8601.string(from: held.until)))]))
            })),
            ("lockScreen", lockScreen.map(\.json) ?? .null),
        ]))
    }
}

extension ScheduledSummary {
    /// The summary as it shows for a viewer of `languages`: its title in their language.
    public func rendered(languages: [String]) -> RenderedDevice.Summary {
        RenderedDevice.Summary(
            title: SummaryWords.title(period, languages: languages), deliveredAt: deliveredAt, count: count, featured: featured, apps: apps)
    }
}

extension RenderedDevice.Summary {
    public var json: JSONValue {
        .object(JSONObject([
            ("title", .string(title)),
            ("deliveredAt", .string(ISO8601.string(from: deliveredAt))),
            ("count", .integer(Int64(count))),
            ("featured", .array(featured.map { .object(JSONObject([("app", .string($0.app)), ("id", .string($0.identifier))])) })),
            ("apps", .array(apps.map { part in
                .object(JSONObject([("app", .string(part.app)), ("ids", .array(part.identifiers.map(JSONValue.string)))]))
            })),
        ]))
    }
}

extension LockScreenView {
    public var json: JSONValue {
        .object(JSONObject([
            ("layout", .string(layout.rawValue)),
            ("notificationCount", .integer(Int64(notificationCount))),
            ("cards", .array(cards.map(JSONValue.string))),
            ("behind", .integer(Int64(behind))),
        ]))
    }
}
