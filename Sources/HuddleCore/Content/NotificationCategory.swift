/// A type of notification an app registers (`UNNotificationCategory`): its actions, and the texts that
/// summarize its notifications in a group or stand in for them when previews are hidden.
public struct NotificationCategory: Sendable, Hashable {
    public var identifier: String
    public var actions: [NotificationAction]
    public var intentIdentifiers: [String]
    /// The line shown for a group when previews are hidden; `%u` is the number of notifications.
    public var hiddenPreviewsBodyPlaceholder: LocalizableText?
    /// The summary under a group's leading notification: `%u more messages`, `%u more messages from %@`.
    public var categorySummaryFormat: LocalizableText?
    public var options: Set<CategoryOption>

    public init(
        identifier: String,
        actions: [NotificationAction] = [],
        intentIdentifiers: [String] = [],
        hiddenPreviewsBodyPlaceholder: LocalizableText? = nil,
        categorySummaryFormat: LocalizableText? = nil,
        options: Set<CategoryOption> = []
    ) {
        self.identifier = identifier
        self.actions = actions
        self.intentIdentifiers = intentIdentifiers
        self.hiddenPreviewsBodyPlaceholder = hiddenPreviewsBodyPlaceholder
        self.categorySummaryFormat = categorySummaryFormat
        self.options = options
    }
}

/// `UNNotificationCategoryOptions`, by Apple's names.
public enum CategoryOption: String, Sendable, Hashable, CaseIterable {
    case customDismissAction, allowInCarPlay, hiddenPreviewsShowTitle, hiddenPreviewsShowSubtitle, allowAnnouncement
}

/// A button on a notification (`UNNotificationAction`).
public struct NotificationAction: Sendable, Hashable {
    public var identifier: String
    public var title: LocalizableText
    /// `authenticationRequired`, `destructive`, `foreground`.
    public var options: [String]

    public init(identifier: String, title: LocalizableText, options: [String] = []) {
        self.identifier = identifier
        self.title = title
        self.options = options
    }
}
