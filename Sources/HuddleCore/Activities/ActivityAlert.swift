/// The `alert` of a Live Activity push. On iPhone it does not become a notification: it lights the screen
/// and shows the activity expanded, or as a banner (docs/push-types.md §2).
///
/// Its `title` and `body` are strings or `{"loc-key", "loc-args"}` objects, unlike a notification's alert,
/// which keeps `title-loc-key` beside `title`.
public struct ActivityAlert: Sendable, Hashable {
    public var title: LocalizableText?
    public var body: LocalizableText?
    /// A sound file name, `default`, or nil for silence.
    public var sound: String?

    public init(title: LocalizableText? = nil, body: LocalizableText? = nil, sound: String? = nil) {
        self.title = title
        self.body = body
        self.sound = sound
    }

    /// Reads `aps.alert`: a string is the body, as on a notification.
    init(_ reader: JSONReader) throws(JSONReadError) {
        if case .string(let body) = reader.value {
            self.init(body: .plain(body))
            return
        }
        _ = try reader.object()
        self.init(
            title: try reader.optionalMember("title").map(Self.text),
            body: try reader.optionalMember("body").map(Self.text),
            sound: try reader.optionalMember("sound").map(Self.sound))
    }

    private static func text(_ reader: JSONReader) throws(JSONReadError) -> LocalizableText {
        if case .string(let text) = reader.value { return .plain(text) }
        guard case .object = reader.value else {
            throw reader.failure("expected a string or an object with loc-key and loc-args, found \(reader.value.kindDescription)")
        }
        let key = try reader.member("loc-key").string()
        let arguments = try reader.optionalMember("loc-args")?.array().map { element throws(JSONReadError) in try element.string() } ?? []
        return .localized(key: key, arguments: arguments)
    }

    private static func sound(_ reader: JSONReader) throws(JSONReadError) -> String {
        if case .string(let name) = reader.value { return name }
        guard case .object = reader.value else {
            throw reader.failure("expected a string or an object, found \(reader.value.kindDescription)")
        }
        return try reader.optionalMember("name")?.string() ?? "default"
    }
}
