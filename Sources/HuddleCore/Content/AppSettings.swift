/// What the person chose for one app in Settings › Notifications: how it groups and when it shows
/// previews. Apps cannot change these.
public struct AppSettings: Sendable, Hashable {
    public var grouping: Grouping
    public var showPreviews: PreviewVisibility

    public init(grouping: Grouping = .automatic, showPreviews: PreviewVisibility = .whenAuthenticated) {
        self.grouping = grouping
        self.showPreviews = showPreviews
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
