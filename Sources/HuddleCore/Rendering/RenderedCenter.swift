public import Foundation

/// A center as one viewer sees it: the model every surface prints (the CLI's JSON and text, the device
/// API, the web page). Its JSON form is specified in scenario.md.
public struct RenderedCenter: Sendable, Hashable {
    public var languages: [String]
    public var locked: Bool
    /// In center order.
    public var groups: [RenderedGroup]
    /// Problems met while rendering (an invalid translated format, say), for logs; not part of the JSON.
    public var diagnostics: [String]
    /// What the person's device settings add (summary, Focus, Lock Screen layout), for a device whose settings
    /// are in play (``DeviceAttention/decorate(_:for:at:)``); `nil` leaves the JSON as scenario.md writes it.
    public var device: RenderedDevice?

    public init(languages: [String], locked: Bool, groups: [RenderedGroup], diagnostics: [String] = []) {
        self.languages = languages
        self.locked = locked
        self.groups = groups
        self.diagnostics = diagnostics
    }
}

/// One stack.
public struct RenderedGroup: Sendable, Hashable {
    /// The group's stable text id (``GroupID``).
    public var id: String
    public var app: String
    /// The app's name as people see it: its display name, else the last part of its bundle identifier.
    /// Not part of the JSON form (scenario.md); the page prints it.
    public var appName: String
    /// The thread identifier; `nil` for an app group and for a single notification with grouping off.
    public var thread: String?
    /// How many notifications the group holds.
    public var count: Int
    public var previewsHidden: Bool
    /// The line under the leading notification; `nil` for a group of one or when previews are hidden.
    public var summary: String?
    /// The line that stands for the group when previews are hidden, else `nil`.
    public var hiddenPreviewsText: String?
    /// Newest first: the first is the leading notification. May be cut short by
    /// ``RenderOptions/notificationLimit``; ``count`` still counts all of them.
    public var notifications: [RenderedNotification]

    public init(
        id: String, app: String, appName: String, thread: String?, count: Int, previewsHidden: Bool, summary: String?,
        hiddenPreviewsText: String?, notifications: [RenderedNotification]
    ) {
        self.id = id
        self.app = app
        self.appName = appName
        self.thread = thread
        self.count = count
        self.previewsHidden = previewsHidden
        self.summary = summary
        self.hiddenPreviewsText = hiddenPreviewsText
        self.notifications = notifications
    }
}

/// One notification, its texts resolved for the viewer and hidden where previews are hidden.
public struct RenderedNotification: Sendable, Hashable {
    public var id: String
    public var date: Date
    public var title: String?
    public var subtitle: String?
    public var body: String?
    public var categoryIdentifier: String
    public var threadIdentifier: String
    public var summaryArgument: String
    public var summaryArgumentCount: Int
    public var interruptionLevel: InterruptionLevel
    public var relevanceScore: Double?
    public var userInfo: JSONObject
    /// The Focus that delivered it quietly, if one did (in the JSON only then).
    public var silencedBy: String?

    public init(
        id: String, date: Date, title: String?, subtitle: String?, body: String?, categoryIdentifier: String,
        threadIdentifier: String, summaryArgument: String, summaryArgumentCount: Int,
        interruptionLevel: InterruptionLevel, relevanceScore: Double?, userInfo: JSONObject
    ) {
        self.id = id
        self.date = date
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.categoryIdentifier = categoryIdentifier
        self.threadIdentifier = threadIdentifier
        self.summaryArgument = summaryArgument
        self.summaryArgumentCount = summaryArgumentCount
        self.interruptionLevel = interruptionLevel
        self.relevanceScore = relevanceScore
        self.userInfo = userInfo
    }
}

/// How much of a center to render.
public struct RenderOptions: Sendable, Hashable {
    /// At most this many notifications per group (the leading one first); `nil` for all. A page that
    /// shows stacks collapsed needs 1 to 3, which keeps rendering linear in the number of groups.
    public var notificationLimit: Int?

    public init(notificationLimit: Int? = nil) {
        self.notificationLimit = notificationLimit
    }
}

// MARK: JSON

extension RenderedCenter {
    /// The JSON form of scenario.md, keys in its order.
    public var json: JSONValue {
        var object = JSONObject([
            ("languages", .array(languages.map(JSONValue.string))),
            ("locked", .bool(locked)),
            ("groups", .array(groups.map(\.json))),
        ])
        if let device { object["device"] = device.json }
        return .object(object)
    }
}

extension RenderedGroup {
    public var json: JSONValue {
        .object(JSONObject([
            ("id", .string(id)),
            ("app", .string(app)),
            ("thread", thread.map(JSONValue.string) ?? .null),
            ("count", .integer(Int64(count))),
            ("previewsHidden", .bool(previewsHidden)),
            ("summary", summary.map(JSONValue.string) ?? .null),
            ("hiddenPreviewsText", hiddenPreviewsText.map(JSONValue.string) ?? .null),
            ("notifications", .array(notifications.map(\.json))),
        ]))
    }
}

extension RenderedNotification {
    public var json: JSONValue {
        var object = JSONObject([
            ("id", .string(id)),
            ("date", .string(ISO8601.string(from: date))),
            ("title", title.map(JSONValue.string) ?? .null),
            ("subtitle", subtitle.map(JSONValue.string) ?? .null),
            ("body", body.map(JSONValue.string) ?? .null),
            ("categoryIdentifier", .string(categoryIdentifier)),
            ("threadIdentifier", .string(threadIdentifier)),
            ("summaryArgument", .string(summaryArgument)),
            ("summaryArgumentCount", .integer(Int64(summaryArgumentCount))),
            ("interruptionLevel", .string(interruptionLevel.rawValue)),
            ("relevanceScore", relevanceScore.map(JSONValue.double) ?? .null),
            ("userInfo", .object(userInfo)),
        ])
        if let silencedBy { object["silencedBy"] = .string(silencedBy) }
        return .object(object)
    }
}
