public import Foundation

/// The `aps` of a `liveactivity` push, decoded and checked, before any activity is looked at.
///
/// Keys and units are Apple's (docs/push-types.md §2): `timestamp`, `stale-date` and `dismissal-date` in
/// seconds since 1970. `content-state` and `attributes` are kept as JSON: whether they decode depends on
/// the activity type, which ``DeviceActivities`` checks.
public struct ActivityPush: Sendable, Hashable {
    /// APNs' limit for every push type but VoIP; a Live Activity push is no exception.
    public static let maximumSize = 4096

    public enum Event: String, Sendable, Hashable, CaseIterable {
        case start, update, end
    }

    public var event: Event
    /// When the provider made the data. Updates older than the last applied are ignored.
    public var timestamp: Date
    /// A JSON object, or nil (allowed on `end` only).
    public var contentState: JSONValue?
    /// On `start`: the `ActivityAttributes` type's name.
    public var attributesType: String?
    /// On `start`: a JSON object.
    public var attributes: JSONValue?
    public var alert: ActivityAlert?
    public var staleDate: Date?
    /// On `end`: when to remove the ended activity (in the past: at once).
    public var dismissalDate: Date?
    /// Relative, any number (Apple's examples use 100 and 50); not a notification's 0…1.
    public var relevanceScore: Double?
    /// `input-push-token: 1` on `start`: the new activity reports its update token.
    public var inputPushToken: Bool
    /// `input-push-channel` on `start`: the broadcast channel the new activity listens on.
    public var inputPushChannel: String?
    /// Keys iOS ignores for this event, a missing alert on `start`, a missing final state on `end`.
    public var notes: [ActivityNote]

    public init(
        event: Event, timestamp: Date, contentState: JSONValue? = nil, attributesType: String? = nil, attributes: JSONValue? = nil,
        alert: ActivityAlert? = nil, staleDate: Date? = nil, dismissalDate: Date? = nil, relevanceScore: Double? = nil,
        inputPushToken: Bool = false, inputPushChannel: String? = nil, notes: [ActivityNote] = []
    ) {
        self.event = event
        self.timestamp = timestamp
        self.contentState = contentState
        self.attributesType = attributesType
        self.attributes = attributes
        self.alert = alert
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.relevanceScore = relevanceScore
        self.inputPushToken = inputPushToken
        self.inputPushChannel = inputPushChannel
        self.notes = notes
    }

    /// Decodes a push body.
    /// - Throws: ``ActivityError``: empty, over ``maximumSize``, not JSON, or a key of the wrong type or
    ///   missing, its path named (`aps.content-state: is missing`).
    public static func decode(_ bytes: some Collection<UInt8>) throws(ActivityError) -> ActivityPush {
        guard !bytes.isEmpty else { throw ActivityError(.invalidValue, "the payload is empty") }
        guard bytes.count <= maximumSize else {
            throw ActivityError(.tooLarge, "the payload is \(bytes.count) bytes, more than the \(maximumSize) allowed")
        }
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw ActivityError(.malformedJSON, "the payload is not valid JSON: \(error)")
        }
        return try decode(json)
    }

    /// Decodes a payload already parsed (a scenario's `payload`).
    public static func decode(_ json: JSONValue) throws(ActivityError) -> ActivityPush {
        do {
            return try decode(aps: JSONReader(json).member("aps"))
        } catch {
            throw ActivityError(error)
        }
    }

    private static func decode(aps: JSONReader) throws(JSONReadError) -> ActivityPush {
        _ = try aps.object()
        let eventReader = try aps.member("event")
        let eventName = try eventReader.string()
        guard let event = Event(rawValue: eventName) else {
            throw eventReader.failure("expected start, update or end, found \"\(eventName)\"")
        }
        var push = ActivityPush(event: event, timestamp: try unixDate(aps.member("timestamp")))
        push.contentState = try aps.optionalMember("content-state").map { reader throws(JSONReadError) in .object(try reader.object()) }
        push.attributesType = try aps.optionalMember("attributes-type")?.string()
        push.attributes = try aps.optionalMember("attributes").map { reader throws(JSONReadError) in .object(try reader.object()) }
        push.alert = try aps.optionalMember("alert").map { reader throws(JSONReadError) in try ActivityAlert(reader) }
        push.staleDate = try aps.optionalMember("stale-date").map(unixDate)
        push.dismissalDate = try aps.optionalMember("dismissal-date").map(unixDate)
        if let score = try aps.optionalMember("relevance-score") {
            let value = try score.number()
            guard value.isFinite else { throw score.failure("must be a finite number") }
            push.relevanceScore = value
        }
        if let flag = try aps.optionalMember("input-push-token") {
            if case .bool(let bool) = flag.value { push.inputPushToken = bool } else { push.inputPushToken = try flag.integer() == 1 }
        }
        push.inputPushChannel = try aps.optionalMember("input-push-channel")?.string()

        switch event {
        case .start:
            _ = try aps.member("attributes-type")
            _ = try aps.member("attributes")
            _ = try aps.member("content-state")
            if push.attributesType?.isEmpty == true { throw JSONReadError(path: "aps.attributes-type", message: "is empty") }
            if push.inputPushToken, push.inputPushChannel != nil {
                throw JSONReadError(path: "aps.input-push-channel", message: "cannot go with input-push-token: an activity listens on a token or a channel")
            }
            if push.alert == nil {
                push.notes.append(ActivityNote(.startWithoutAlert, path: "aps.alert", "is missing; Apple asks for an alert on start so the person is not surprised by a new activity"))
            }
            push.noteIgnored(["dismissal-date"], for: event, in: aps)
        case .update:
            _ = try aps.member("content-state")
            push.noteIgnored(["attributes-type", "attributes", "dismissal-date", "input-push-token", "input-push-channel"], for: event, in: aps)
        case .end:
            if push.contentState == nil {
                push.notes.append(ActivityNote(.endWithoutContentState, path: "aps.content-state", "is missing; the ended activity keeps showing its last content"))
            }
            push.noteIgnored(["attributes-type", "attributes", "input-push-token", "input-push-channel"], for: event, in: aps)
        }
        return push
    }

    /// A date as `aps` writes them: a number of seconds since 1970, fractions allowed.
    private static func unixDate(_ reader: JSONReader) throws(JSONReadError) -> Date {
        let seconds = try reader.number()
        guard seconds >= 0, seconds < 1e11 else {
            throw reader.failure("expected seconds since 1970, found \(reader.value.jsonText())\(seconds >= 1e11 ? " (milliseconds?)" : "")")
        }
        return Date(timeIntervalSince1970: seconds)
    }

    private mutating func noteIgnored(_ keys: [String], for event: Event, in aps: JSONReader) {
        for key in keys where aps.value[key] != nil {
            notes.append(ActivityNote(.ignoredKey, path: "aps.\(key)", "is not read on \(event.rawValue); it is ignored"))
        }
    }
}
