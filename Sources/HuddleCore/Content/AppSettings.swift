/// What the person chose for one app in Settings › Notifications: how it groups, when it shows previews,
/// whether its Time Sensitive notifications may break through, and whether it goes to the scheduled summary.
/// Apps cannot change these.
public struct AppSettings: Sendable, Hashable {
    public var grouping: Grouping
    public var showPreviews: PreviewVisibility
    /// Settings › Notifications › app › Time Sensitive Notifications: off, the app's Time Sensitive
    /// notifications are treated as active ones (Apple: "The user can turn off the ability for time sensitive
    /// notification interruptions"). On by default, as iOS offers to turn it off after the first one.
    public var timeSensitive: Bool
    /// Settings › Notifications › app › Scheduled Summary (iOS 15): the app's passive and active notifications
    /// wait for the device's next summary time. Off by default.
    public var scheduledSummary: Bool

    public init(
        grouping: Grouping = .automatic, showPreviews: PreviewVisibility = .whenAuthenticated, timeSensitive: Bool = true,
        scheduledSummary: Bool = false
    ) {
        self.grouping = grouping
        self.showPreviews = showPreviews
        self.timeSensitive = timeSensitive
        self.scheduledSummary = scheduledSummary
    }

    /// Whether this app's previews are hidden for a viewer.
    public func hidesPreviews(locked: Bool) -> Bool {
        switch showPreviews {
        case .always: false
        case .whenAuthenticated: locked
        case .never: true
        }
    }
}

/// Settings › Notifications › Notification Grouping.
public enum Grouping: String, Sendable, Hashable, CaseIterable {
    /// By app, and by thread identifier where the app sets one.
    case automatic
    /// One group for the app; thread identifiers are ignored.
    case byApp
    /// No grouping: every notification stands alone.
    case off
}

/// Settings › Notifications › Show Previews.
public enum PreviewVisibility: String, Sendable, Hashable, CaseIterable {
    case always, whenAuthenticated, never
}
