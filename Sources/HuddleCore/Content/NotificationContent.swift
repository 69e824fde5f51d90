/// What a notification says and how it groups: the fields of `UNNotificationContent`, by Apple's names.
public struct NotificationContent: Sendable, Hashable {
    public var title: LocalizableText?
    public var subtitle: LocalizableText?
    public var body: LocalizableText?
    public var badge: Int?
    public var sound: NotificationSound?
    /// The registered category this notification belongs to; empty for none.
    public var categoryIdentifier: String
    /// The thread this notification groups into; empty for the app's own group.
    public var threadIdentifier: String
    /// The value this notification adds to its group's summary ("Teja"); empty for none.
    public var summaryArgument: String
    /// How many items this notification stands for in the summary ("2 new episodes" counts 2).
    ///
    /// Kept as sent; the engine treats 0 or less as 1 (``effectiveSummaryArgumentCount``) and the linter
    /// reports it.
    public var summaryArgumentCount: Int
    public var targetContentIdentifier: String?
    public var interruptionLevel: InterruptionLevel
    /// 0…1; `nil` when not set.
    public var relevanceScore: Double?
    public var filterCriteria: String?
    public var launchImageName: String?
    /// The payload's custom keys (everything beside `aps`), or a local notification's user info.
    public var userInfo: JSONObject
    /// What an Android notification says beside its text (channel, tag, visibility…); `nil` for an iPhone's.
    public var android: AndroidPresentation?

    public init(
        title: LocalizableText? = nil,
        subtitle: LocalizableText? = nil,
        body: LocalizableText? = nil,
        badge: Int? = nil,
        sound: NotificationSound? = nil,
        categoryIdentifier: String = "",
        threadIdentifier: String = "",
        summaryArgument: String = "",
        summaryArgumentCount: Int = 1,
        targetContentIdentifier: String? = nil,
        interruptionLevel: InterruptionLevel = .active,
        relevanceScore: Double? = nil,
        filterCriteria: String? = nil,
        launchImageName: String? = nil,
        userInfo: JSONObject = JSONObject(),
        android: AndroidPresentation? = nil
    ) {
        self.android = android
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.badge = badge
        self.sound = sound
        self.categoryIdentifier = categoryIdentifier
        self.threadIdentifier = threadIdentifier
        self.summaryArgument = summaryArgument
        self.summaryArgumentCount = summaryArgumentCount
        self.targetContentIdentifier = targetContentIdentifier
        self.interruptionLevel = interruptionLevel
        self.relevanceScore = relevanceScore
        self.filterCriteria = filterCriteria
        self.launchImageName = launchImageName
        self.userInfo = userInfo
    }

    /// The largest badge accepted: what the 32-bit counters of Apple's platforms hold.
    public static let maximumBadge = Int(Int32.max)

    /// The most one notification counts for in a summary. Counts come from senders; capping each keeps
    /// every sum of a center's counts far from overflowing (it would take 9 × 10¹² notifications).
    public static let maximumSummaryArgumentCount = 1_000_000

    /// The count the summary uses: ``summaryArgumentCount``, or 1 when that is 0 or negative
    /// (behavior.md section 1), and at most ``maximumSummaryArgumentCount``.
    public var effectiveSummaryArgumentCount: Int {
        summaryArgumentCount > 0 ? min(summaryArgumentCount, Self.maximumSummaryArgumentCount) : 1
    }

    /// True when there is something to show in the center: a push with no alert text (background,
    /// badge-only, sound-only) changes nothing there.
    public var isVisible: Bool {
        func shows(_ text: LocalizableText?) -> Bool { text.map { !$0.isEmpty } ?? false }
        return shows(title) || shows(subtitle) || shows(body)
    }
}

/// A notification's sound: a name, or a critical alert with its volume.
public struct NotificationSound: Sendable, Hashable {
    public var name: String
    public var critical: Bool
    /// 0…1, for critical alerts.
    public var volume: Double?

    public init(name: String, critical: Bool = false, volume: Double? = nil) {
        self.name = name
        self.critical = critical
        self.volume = volume
    }
}

/// A notification to deliver: its identifier (unique per app) and content.
public struct NotificationRequest: Sendable, Hashable {
    public var identifier: String
    public var content: NotificationContent

    public init(identifier: String, content: NotificationContent) {
        self.identifier = identifier
        self.content = content
    }
}
