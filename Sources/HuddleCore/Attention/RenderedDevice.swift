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
}

extension DeviceAttention {
    /// The device's part of the rendering for `viewer` at `now` (a Focus on a schedule is on or not by then).
    public func render(center: RenderedCenter, for viewer: Viewer, at now: Date) -> RenderedDevice {
        let focus = settings.focus.mode == .off ? nil
            : RenderedDevice.Focus(name: settings.focus.name, isActive: settings.focus.isActive(at: now, in: settings.clock))
        let summary = summaries.last.map { summary in
            RenderedDevice.Summary(
                title: SummaryWords.title(summary.period, languages: viewer.languages), deliveredAt: summary.deliveredAt, count: summary.count,
                featured: summary.featured, apps: summary.apps)
        }
        return RenderedDevice(
            focus: focus, summary: summary,
            held: held.map { RenderedDevice.Held(app: $0.app, identifier: $0.request.identifier, until: $0.until) },
            lockScreen: viewer.locked ? LockScreenView(layout: settings.lockScreen, groups: center.groups) : nil)
    }

    /// `center` with the device's part and each silenced notification's Focus.
    public func decorate(_ center: RenderedCenter, for viewer: Viewer, at now: Date) -> RenderedCenter {
        var center = center
        for group in center.groups.indices {
            for index in center.groups[group].notifications.indices {
                let notification = center.groups[group].notifications[index]
                center.groups[group].notifications[index].silencedBy = silencingFocus(app: center.groups[group].app, identifier: notification.id)
            }
        }
        center.device = render(center: center, for: viewer, at: now)
        return center
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
