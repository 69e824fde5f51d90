import Foundation

extension DeviceSettings {
    /// The members a device's settings are written with (a scenario's `device`, a `setDevice` event).
    public static let jsonMembers: Set<String> = ["timeZone", "summary", "focus", "lockScreen"]

    /// Applies the settings an object names; the others stay as they are. Summary and Focus are each replaced
    /// member by member too (`{"summary": {"enabled": true}}` keeps the times).
    /// - Throws: ``JSONReadError`` naming the key path of a value that is not a setting.
    public mutating func update(json reader: JSONReader, ignoring: Set<String> = []) throws(JSONReadError) {
        try update(json: reader, ignoring: ignoring, droppingInvalidAllowedApps: false)
    }

    /// - Parameter droppingInvalidAllowedApps: whether a Focus's allowed app that is no app identifier is left out rather
    ///   than refused: settings stored before identifiers were checked still read (no app could match one).
    mutating func update(json reader: JSONReader, ignoring: Set<String>, droppingInvalidAllowedApps lenient: Bool) throws(JSONReadError) {
        try reader.rejectUnknownMembers(Self.jsonMembers.union(ignoring))
        var timeZone = self.timeZone
        if let zone = try reader.optionalMember("timeZone") { timeZone = try zone.string() }
        var summary = self.summary
        if let summaryReader = try reader.optionalMember("summary") {
            try summaryReader.rejectUnknownMembers(["enabled", "times"])
            var enabled = summary.isEnabled
            if let member = try summaryReader.optionalMember("enabled") { enabled = try member.bool() }
            var times = summary.times
            if let member = try summaryReader.optionalMember("times") {
                let elements = try member.array()
                guard elements.count <= SummarySchedule.maximumTimes else {
                    throw member.failure("\(elements.count) times, more than the \(SummarySchedule.maximumTimes) a day a summary may have")
                }
                times = try elements.map { element throws(JSONReadError) in
                    guard let time = TimeOfDay(try element.string()) else { throw element.failure("expected a time of day like \"08:00\"") }
                    return time
                }
            }
            do {
                summary = try SummarySchedule(isEnabled: enabled, times: times)
            } catch {
                throw summaryReader.failure(error.description)
            }
        }
        var focus = self.focus
        if let focusReader = try reader.optionalMember("focus") { focus = try Self.focus(focusReader, updating: focus, lenient: lenient) }
        var lockScreen = self.lockScreen
        if let member = try reader.optionalMember("lockScreen") {
            let name = try member.string()
            guard let layout = LockScreenLayout(rawValue: name) else { throw member.failure("expected count, stack or list, found \"\(name.prefix(40))\"") }
            lockScreen = layout
        }
        do {
            self = try DeviceSettings(timeZone: timeZone, summary: summary, focus: focus, lockScreen: lockScreen)
        } catch {
            throw (try? reader.member("timeZone"))?.failure(error.description) ?? reader.failure(error.description)
        }
    }

    private static func focus(_ reader: JSONReader, updating focus: FocusSettings, lenient: Bool) throws(JSONReadError) -> FocusSettings {
        try reader.rejectUnknownMembers(["name", "on", "schedule", "allowedApps", "allowsTimeSensitive"])
        var mode = focus.mode
        switch (try reader.optionalMember("on"), try reader.optionalMember("schedule")) {
        case (.some, .some):
            throw reader.failure("a Focus is either \"on\" or on a \"schedule\", not both")
        case (let on?, nil):
            mode = try on.bool() ? .on : .off
        case (nil, let schedule?):
            try schedule.rejectUnknownMembers(["from", "to"])
            func time(_ name: String) throws(JSONReadError) -> TimeOfDay {
                let member = try schedule.member(name)
                guard let time = TimeOfDay(try member.string()) else { throw member.failure("expected a time of day like \"22:00\"") }
                return time
            }
            mode = .scheduled(from: try time("from"), to: try time("to"))
        case (nil, nil):
            break
        }
        var allowed = focus.allowedApps
        if let member = try reader.optionalMember("allowedApps") {
            let elements = try member.array()
            guard elements.count <= FocusSettings.maximumAllowedApps else {
                throw member.failure("\(elements.count) apps, more than the \(FocusSettings.maximumAllowedApps) a Focus may allow")
            }
            allowed = []
            for element in elements {
                let app = try element.string()
                guard FocusSettings.isAppIdentifier(app) else {
                    if lenient { continue }
                    throw element.failure(
                        "expected an app identifier (1 to \(FocusSettings.maximumAppIdentifierBytes) letters, digits, '.', '-' or '_')")
                }
                allowed.insert(app)
            }
        }
        let name = try reader.optionalMember("name")?.string() ?? focus.name
        let allowsTimeSensitive = try reader.optionalMember("allowsTimeSensitive")?.bool() ?? focus.allowsTimeSensitive
        do {
            return try FocusSettings(name: name, mode: mode, allowedApps: allowed, allowsTimeSensitive: allowsTimeSensitive)
        } catch {
            throw reader.failure(error.description)
        }
    }

    /// The settings as JSON, every member written (what ``update(json:ignoring:)`` reads back).
    public var json: JSONValue {
        var focusObject = JSONObject([("name", .string(focus.name))])
        switch focus.mode {
        case .off: focusObject["on"] = .bool(false)
        case .on: focusObject["on"] = .bool(true)
        case .scheduled(let from, let to):
            focusObject["schedule"] = .object(JSONObject([("from", .string(from.description)), ("to", .string(to.description))]))
        }
        focusObject["allowedApps"] = .array(focus.allowedApps.sorted().map(JSONValue.string))
        focusObject["allowsTimeSensitive"] = .bool(focus.allowsTimeSensitive)
        return .object(JSONObject([
            ("timeZone", .string(timeZone)),
            ("summary", .object(JSONObject([("enabled", .bool(summary.isEnabled)), ("times", .array(summary.times.map { .string($0.description) }))]))),
            ("focus", .object(focusObject)),
            ("lockScreen", .string(lockScreen.rawValue)),
        ]))
    }
}
