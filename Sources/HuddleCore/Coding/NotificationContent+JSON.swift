/// The JSON form of content, categories and settings, by Apple's property names: the scenario file's
/// `content`, and the device API's local notifications.
extension NotificationContent {
    static let jsonKeys: Set<String> = [
        "title", "subtitle", "body", "badge", "sound", "categoryIdentifier", "threadIdentifier", "summaryArgument",
        "summaryArgumentCount", "targetContentIdentifier", "interruptionLevel", "relevanceScore", "filterCriteria",
        "launchImageName", "userInfo", "titleLocKey", "titleLocArgs", "subtitleLocKey", "subtitleLocArgs",
        "bodyLocKey", "bodyLocArgs", "android",
    ]

    /// Reads content; unknown keys are refused so that a misspelt property does not vanish silently.
    public init(json reader: JSONReader) throws(JSONReadError) {
        try reader.rejectUnknownMembers(Self.jsonKeys)
        self.init()
        title = try LocalizableText.read(reader, "title", locKey: "titleLocKey", locArgs: "titleLocArgs")
        subtitle = try LocalizableText.read(reader, "subtitle", locKey: "subtitleLocKey", locArgs: "subtitleLocArgs")
        body = try LocalizableText.read(reader, "body", locKey: "bodyLocKey", locArgs: "bodyLocArgs")
        badge = try reader.optionalMember("badge")?.badge()
        if let sound = try reader.optionalMember("sound") {
            if case .string(let name) = sound.value {
                self.sound = NotificationSound(name: name)
            } else {
                try sound.rejectUnknownMembers(["name", "critical", "volume"])
                self.sound = NotificationSound(
                    name: try sound.optionalMember("name")?.string() ?? "default",
                    critical: try sound.optionalMember("critical")?.bool() ?? false,
                    volume: try sound.optionalMember("volume")?.number())
            }
        }
        categoryIdentifier = try reader.optionalMember("categoryIdentifier")?.string() ?? ""
        threadIdentifier = try reader.optionalMember("threadIdentifier")?.string() ?? ""
        summaryArgument = try reader.optionalMember("summaryArgument")?.string() ?? ""
        summaryArgumentCount = try reader.optionalMember("summaryArgumentCount")?.integer() ?? 1
        targetContentIdentifier = try reader.optionalMember("targetContentIdentifier")?.string()
        if let level = try reader.optionalMember("interruptionLevel") {
            let name = try level.string()
            guard let value = InterruptionLevel(rawValue: name) ?? InterruptionLevel(apnsName: name) else {
                throw level.failure("expected one of passive, active, timeSensitive, critical, found \"\(name)\"")
            }
            interruptionLevel = value
        }
        if let score = try reader.optionalMember("relevanceScore") {
            let value = try score.number()
            guard (0...1).contains(value) else { throw score.failure("must be between 0 and 1, found \(value)") }
            relevanceScore = value
        }
        filterCriteria = try reader.optionalMember("filterCriteria")?.string()
        launchImageName = try reader.optionalMember("launchImageName")?.string()
        userInfo = try reader.optionalMember("userInfo")?.object() ?? JSONObject()
        android = try reader.optionalMember("android").map { reader throws(JSONReadError) in try AndroidPresentation(json: reader) }
    }

    /// The JSON form, every set property by Apple's name; what ``init(json:)`` reads back.
    public var json: JSONValue {
        var object = JSONObject()
        object["title"] = title?.json
        object["subtitle"] = subtitle?.json
        object["body"] = body?.json
        object["badge"] = badge.map { .integer(Int64($0)) }
        if let sound {
            object["sound"] = .object(JSONObject([
                ("name", .string(sound.name)), ("critical", .bool(sound.critical)),
                ("volume", sound.volume.map(JSONValue.double) ?? .null),
            ]))
        }
        if !categoryIdentifier.isEmpty { object["categoryIdentifier"] = .string(categoryIdentifier) }
        if !threadIdentifier.isEmpty { object["threadIdentifier"] = .string(threadIdentifier) }
        if !summaryArgument.isEmpty { object["summaryArgument"] = .string(summaryArgument) }
        if summaryArgumentCount != 1 { object["summaryArgumentCount"] = .integer(Int64(summaryArgumentCount)) }
        object["targetContentIdentifier"] = targetContentIdentifier.map(JSONValue.string)
        if interruptionLevel != .active { object["interruptionLevel"] = .string(interruptionLevel.rawValue) }
        object["relevanceScore"] = relevanceScore.map(JSONValue.double)
        object["filterCriteria"] = filterCriteria.map(JSONValue.string)
        object["launchImageName"] = launchImageName.map(JSONValue.string)
        if !userInfo.isEmpty { object["userInfo"] = .object(userInfo) }
        object["android"] = android?.json
        return .object(object)
    }
}

extension LocalizableText {
    /// Reads a text: a string, or `{"key": …, "arguments": […]}`.
    public init(json reader: JSONReader) throws(JSONReadError) {
        switch reader.value {
        case .string(let text):
            self = .plain(text)
        case .object:
            try reader.rejectUnknownMembers(["key", "arguments"])
            let key = try reader.member("key").string()
            let arguments = try reader.optionalMember("arguments")?.array().map { element throws(JSONReadError) in
                try element.string()
            }
            self = .localized(key: key, arguments: arguments ?? [])
        default:
            throw reader.failure("expected a string or an object with \"key\" and \"arguments\", found \(reader.value.kindDescription)")
        }
    }

    public var json: JSONValue {
        switch self {
        case .plain(let text):
            .string(text)
        case .localized(let key, let arguments):
            .object(JSONObject([("key", .string(key)), ("arguments", .array(arguments.map(JSONValue.string)))]))
        }
    }

    /// A text member, or its `…LocKey` / `…LocArgs` spelling.
    static func read(_ reader: JSONReader, _ name: String, locKey: String, locArgs: String) throws(JSONReadError) -> LocalizableText? {
        if let key = try reader.optionalMember(locKey)?.string() {
            let arguments = try reader.optionalMember(locArgs)?.array().map { element throws(JSONReadError) in
                try element.string()
            }
            return .localized(key: key, arguments: arguments ?? [])
        }
        return try reader.optionalMember(name).map { member throws(JSONReadError) in try LocalizableText(json: member) }
    }
}

extension NotificationCategory {
    public init(json reader: JSONReader) throws(JSONReadError) {
        try reader.rejectUnknownMembers([
            "identifier", "actions", "intentIdentifiers", "hiddenPreviewsBodyPlaceholder", "categorySummaryFormat", "options",
        ])
        self.init(identifier: try reader.member("identifier").string())
        actions = try reader.optionalMember("actions")?.array().map { action throws(JSONReadError) in
            try action.rejectUnknownMembers(["identifier", "title", "options"])
            return NotificationAction(
                identifier: try action.member("identifier").string(),
                title: try LocalizableText(json: try action.member("title")),
                options: try action.optionalMember("options")?.array().map { option throws(JSONReadError) in try option.string() } ?? [])
        } ?? []
        intentIdentifiers = try reader.optionalMember("intentIdentifiers")?.array().map { element throws(JSONReadError) in
            try element.string()
        } ?? []
        hiddenPreviewsBodyPlaceholder = try reader.optionalMember("hiddenPreviewsBodyPlaceholder").map {
            member throws(JSONReadError) in try LocalizableText(json: member)
        }
        categorySummaryFormat = try reader.optionalMember("categorySummaryFormat").map {
            member throws(JSONReadError) in try LocalizableText(json: member)
        }
        for option in try reader.optionalMember("options")?.array() ?? [] {
            let name = try option.string()
            guard let value = CategoryOption(rawValue: name) else {
                throw option.failure(
                    "unknown option \"\(name)\" (expected one of \(CategoryOption.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            options.insert(value)
        }
    }
}

extension AppSettings {
    /// Applies the settings an object names; the others stay as they are.
    public mutating func update(json reader: JSONReader, ignoring: Set<String> = []) throws(JSONReadError) {
        try reader.rejectUnknownMembers(Set(["grouping", "showPreviews", "timeSensitive", "scheduledSummary"]).union(ignoring))
        if let grouping = try reader.optionalMember("grouping") {
            let name = try grouping.string()
            guard let value = Grouping(rawValue: name) else {
                throw grouping.failure("expected one of automatic, byApp, off, found \"\(name)\"")
            }
            self.grouping = value
        }
        if let previews = try reader.optionalMember("showPreviews") {
            let name = try previews.string()
            guard let value = PreviewVisibility(rawValue: name) else {
                throw previews.failure("expected one of always, whenAuthenticated, never, found \"\(name)\"")
            }
            self.showPreviews = value
        }
        if let timeSensitive = try reader.optionalMember("timeSensitive") { self.timeSensitive = try timeSensitive.bool() }
        if let scheduledSummary = try reader.optionalMember("scheduledSummary") { self.scheduledSummary = try scheduledSummary.bool() }
    }

    /// The settings as JSON; the two of iOS 15 only when they differ from their defaults, so that an app's settings
    /// read as before wherever they are not used.
    public var json: JSONValue {
        var object = JSONObject([("grouping", .string(grouping.rawValue)), ("showPreviews", .string(showPreviews.rawValue))])
        if !timeSensitive { object["timeSensitive"] = .bool(false) }
        if scheduledSummary { object["scheduledSummary"] = .bool(true) }
        return .object(object)
    }
}

extension NotificationCategory {
    /// The JSON form that ``init(json:)`` reads.
    public var json: JSONValue {
        var object = JSONObject([("identifier", .string(identifier))])
        if !actions.isEmpty {
            object["actions"] = .array(actions.map { action in
                .object(JSONObject([
                    ("identifier", .string(action.identifier)), ("title", action.title.json),
                    ("options", .array(action.options.map(JSONValue.string))),
                ]))
            })
        }
        if !intentIdentifiers.isEmpty { object["intentIdentifiers"] = .array(intentIdentifiers.map(JSONValue.string)) }
        object["hiddenPreviewsBodyPlaceholder"] = hiddenPreviewsBodyPlaceholder?.json
        object["categorySummaryFormat"] = categorySummaryFormat?.json
        if !options.isEmpty { object["options"] = .array(options.map(\.rawValue).sorted().map(JSONValue.string)) }
        return .object(object)
    }
}
