public import HuddleCore

/// A decoded APNs payload: the notification content it carries, and the keys that tell the device what
/// else to do (wake the app, run its service extension).
///
/// Decoding follows Apple's "Generating a remote notification": every `aps` key, custom keys beside `aps`
/// into `userInfo`, and `summary-arg` / `summary-arg-count` in `aps.alert` or, as some senders put them,
/// at the root of `aps`.
public struct APNsPayload: Sendable, Hashable {
    /// The maximum payload size for most push types, in bytes.
    public static let maximumSize = 4096
    /// The maximum for VoIP pushes.
    public static let maximumVoIPSize = 5120

    public var content: NotificationContent
    /// `content-available: 1`: a background update.
    public var contentAvailable: Bool
    /// `mutable-content: 1`: the app's service extension may change the content.
    public var mutableContent: Bool
    /// What the payload's sender most likely did not mean (unknown keys, a summary count that is not
    /// positive), for the linter.
    public var notes: [PayloadNote]

    /// The keys `aps` may hold.
    static var apsKeys: Set<String> { PayloadDecoder.apsKeys }
    /// The keys `aps.alert` may hold.
    static var alertKeys: Set<String> { PayloadDecoder.alertKeys }

    /// Decodes payload bytes.
    /// - Parameter maximumSize: the size limit for the push type (``maximumSize`` or ``maximumVoIPSize``).
    /// - Throws: ``PayloadError``, its description naming the key path of a wrong value.
    public static func decode(_ bytes: some Collection<UInt8>, maximumSize: Int = maximumSize) throws(PayloadError) -> APNsPayload {
        guard !bytes.isEmpty else { throw PayloadError(.empty, "the payload is empty") }
        guard bytes.count <= maximumSize else {
            throw PayloadError(.tooLarge, "the payload is \(bytes.count) bytes, more than the \(maximumSize) allowed")
        }
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw PayloadError(.malformedJSON, "the payload is not valid JSON: \(error)")
        }
        return try decode(json)
    }

    /// Decodes a payload already parsed (a scenario's `payload`).
    public static func decode(_ json: JSONValue) throws(PayloadError) -> APNsPayload {
        var decoder = PayloadDecoder(root: JSONReader(json))
        do {
            return try decoder.decode()
        } catch {
            throw PayloadError(error)
        }
    }
}

/// Reads one payload, collecting notes as it goes.
private struct PayloadDecoder {
    let root: JSONReader
    var notes: [PayloadNote] = []

    init(root: JSONReader) {
        self.root = root
    }

    static let alertKeys: Set<String> = [
        "title", "subtitle", "body", "launch-image", "title-loc-key", "title-loc-args", "subtitle-loc-key",
        "subtitle-loc-args", "loc-key", "loc-args", "summary-arg", "summary-arg-count", "action-loc-key", "action",
    ]
    static let apsKeys: Set<String> = [
        "alert", "badge", "sound", "thread-id", "category", "content-available", "mutable-content",
        "target-content-id", "interruption-level", "relevance-score", "filter-criteria", "stale-date",
        "content-state", "timestamp", "event", "dismissal-date", "attributes-type", "attributes",
        "summary-arg", "summary-arg-count", "input-push-channel", "input-push-token", "alert-loc-key", "content-changed",
    ]

    mutating func decode() throws(JSONReadError) -> APNsPayload {
        let rootObject = try root.object()
        let aps = try root.member("aps")
        _ = try aps.object()
        var content = NotificationContent()

        try noteUnknownKeys(of: aps, known: Self.apsKeys, object: "aps", what: "an APNs key")
        if let alert = try aps.optionalMember("alert") {
            try decodeAlert(alert, into: &content)
        }
        content.badge = try aps.optionalMember("badge")?.badge()
        content.sound = try decodeSound(try aps.optionalMember("sound"))
        content.threadIdentifier = try aps.optionalMember("thread-id")?.string() ?? ""
        content.categoryIdentifier = try aps.optionalMember("category")?.string() ?? ""
        content.targetContentIdentifier = try aps.optionalMember("target-content-id")?.string()
        content.filterCriteria = try aps.optionalMember("filter-criteria")?.string()
        if let level = try aps.optionalMember("interruption-level") {
            let name = try level.string()
            guard let interruptionLevel = InterruptionLevel(apnsName: name) else {
                throw level.failure("expected one of passive, active, time-sensitive, critical, found \"\(name)\"")
            }
            content.interruptionLevel = interruptionLevel
        }
        if let score = try aps.optionalMember("relevance-score") {
            let value = try score.number()
            guard (0...1).contains(value) else { throw score.failure("must be between 0 and 1, found \(value)") }
            content.relevanceScore = value
        }
        // The summary keys belong in `alert`; accept them at the root of `aps` too, the alert's winning.
        if content.summaryArgument.isEmpty, let argument = try aps.optionalMember("summary-arg") {
            content.summaryArgument = try argument.string()
        }
        if let count = try aps.optionalMember("summary-arg-count"), root.value["aps"]?["alert"]?["summary-arg-count"] == nil {
            content.summaryArgumentCount = try count.integer()
        }
        // Where the count was read from: aps.alert's wins over aps's.
        let countObject = root.value["aps"]?["alert"]?["summary-arg-count"] != nil ? "aps.alert" : "aps"
        if content.summaryArgumentCount <= 0 {
            notes.append(
                PayloadNote(
                    kind: .summaryArgumentCountNotPositive, object: countObject, key: "summary-arg-count",
                    message: "summary-arg-count \(content.summaryArgumentCount) is not positive; it counts as 1"))
        } else if content.summaryArgumentCount > NotificationContent.maximumSummaryArgumentCount {
            notes.append(
                PayloadNote(
                    kind: .summaryArgumentCountTooLarge, object: countObject, key: "summary-arg-count",
                    message: "summary-arg-count \(content.summaryArgumentCount) is more than \(NotificationContent.maximumSummaryArgumentCount); it counts as \(NotificationContent.maximumSummaryArgumentCount)"))
        }
        let contentAvailable = try flag(aps, "content-available")
        let mutableContent = try flag(aps, "mutable-content")
        for key in ["stale-date", "timestamp", "dismissal-date"] {
            _ = try aps.optionalMember(key)?.integer()
        }
        for key in ["event", "attributes-type"] {
            _ = try aps.optionalMember(key)?.string()
        }
        for key in ["content-state", "attributes"] {
            _ = try aps.optionalMember(key)?.object()
        }
        var userInfo = JSONObject()
        for member in rootObject where member.key != "aps" {
            userInfo[member.key] = member.value
        }
        content.userInfo = userInfo
        return APNsPayload(content: content, contentAvailable: contentAvailable, mutableContent: mutableContent, notes: notes)
    }

    private mutating func decodeAlert(_ alert: JSONReader, into content: inout NotificationContent) throws(JSONReadError) {
        if case .string(let body) = alert.value {
            content.body = .plain(body)
            return
        }
        _ = try alert.object()
        try noteUnknownKeys(of: alert, known: Self.alertKeys, object: "aps.alert", what: "an APNs alert key")
        content.title = try localizable(alert, text: "title", key: "title-loc-key", arguments: "title-loc-args")
        content.subtitle = try localizable(alert, text: "subtitle", key: "subtitle-loc-key", arguments: "subtitle-loc-args")
        content.body = try localizable(alert, text: "body", key: "loc-key", arguments: "loc-args")
        content.launchImageName = try alert.optionalMember("launch-image")?.string()
        _ = try alert.optionalMember("action-loc-key")?.string()
        content.summaryArgument = try alert.optionalMember("summary-arg")?.string() ?? ""
        if let count = try alert.optionalMember("summary-arg-count") {
            content.summaryArgumentCount = try count.integer()
        }
    }

    /// Notes the keys of `reader` (the object at `object`) that are not in `known`.
    private mutating func noteUnknownKeys(of reader: JSONReader, known: Set<String>, object: String, what: String) throws(JSONReadError) {
        for (key, _) in try reader.object().members where !known.contains(key) {
            notes.append(PayloadNote(kind: .unknownKey, object: object, key: key, message: "\(object).\(key) is not \(what); it is ignored"))
        }
    }

    /// A text that may come localized: the `*-loc-key` wins over the plain text, as on iOS.
    private func localizable(_ alert: JSONReader, text: String, key: String, arguments: String) throws(JSONReadError) -> LocalizableText? {
        let plain = try alert.optionalMember(text)?.string()
        let arguments = try alert.optionalMember(arguments).map { reader throws(JSONReadError) in
            try reader.array().map { element throws(JSONReadError) in try Self.locArgument(element) }
        }
        if let locKey = try alert.optionalMember(key)?.string() {
            return .localized(key: locKey, arguments: arguments ?? [])
        }
        if arguments != nil, plain == nil {
            throw JSONReadError(path: alert.path.isEmpty ? key : "\(alert.path).\(key)", message: "is missing, but its arguments are given")
        }
        return plain.map(LocalizableText.plain)
    }

    /// `loc-args` elements are strings; numbers are accepted and written as they were sent, because
    /// providers often send counts as numbers.
    private static func locArgument(_ element: JSONReader) throws(JSONReadError) -> String {
        switch element.value {
        case .string(let string): return string
        case .integer(let integer): return String(integer)
        case .double(let double): return String(double)
        default: throw element.failure("expected a string, found \(element.value.kindDescription)")
        }
    }

    private func decodeSound(_ sound: JSONReader?) throws(JSONReadError) -> NotificationSound? {
        guard let sound else { return nil }
        if case .string(let name) = sound.value { return NotificationSound(name: name) }
        guard case .object = sound.value else {
            throw sound.failure("expected a string or an object, found \(sound.value.kindDescription)")
        }
        let critical = try flag(sound, "critical")
        let name = try sound.optionalMember("name")?.string() ?? "default"
        var volume: Double?
        if let reader = try sound.optionalMember("volume") {
            let value = try reader.number()
            guard (0...1).contains(value) else { throw reader.failure("must be between 0 and 1, found \(value)") }
            volume = value
        }
        return NotificationSound(name: name, critical: critical, volume: volume)
    }

    /// An APNs flag: the integer 1 (or 0). Booleans are accepted too; clients send them.
    private func flag(_ object: JSONReader, _ key: String) throws(JSONReadError) -> Bool {
        guard let reader = try object.optionalMember(key) else { return false }
        if case .bool(let bool) = reader.value { return bool }
        return try reader.integer() != 0
    }
}
