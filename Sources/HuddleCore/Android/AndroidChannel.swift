/// A notification channel an Android app created (`NotificationChannel`): since Android 8.0 every notification
/// posts to one, and the channel's importance, which the person controls from then on, decides how it shows.
public struct AndroidChannel: Sendable, Hashable {
    /// `NotificationManager.IMPORTANCE_*`, by the names the device API and scenarios use.
    public enum Importance: String, Sendable, Hashable, CaseIterable, Comparable {
        /// `IMPORTANCE_NONE` (0): not shown in the shade.
        case none
        /// `IMPORTANCE_MIN` (1): only in the shade, below the fold; no sound, not in the status bar.
        case min
        /// `IMPORTANCE_LOW` (2): in the shade and the status bar, without sound.
        case low
        /// `IMPORTANCE_DEFAULT` (3): everywhere, with sound, without peeking.
        case `default`
        /// `IMPORTANCE_HIGH` (4): everywhere, with sound, and as a heads-up notification on an unlocked screen.
        case high

        /// The constant's value in `NotificationManager`.
        public var value: Int {
            switch self {
            case .none: 0
            case .min: 1
            case .low: 2
            case .default: 3
            case .high: 4
            }
        }

        public static func < (lhs: Importance, rhs: Importance) -> Bool { lhs.value < rhs.value }

        /// Whether a notification of this importance makes a sound.
        public var makesSound: Bool { self >= .default }
    }

    public var id: String
    /// What the person sees in the app's notification settings.
    public var name: String
    public var importance: Importance

    public init(id: String, name: String, importance: Importance = .default) {
        self.id = id
        self.name = name
        self.importance = importance
    }

    /// The channel the Firebase SDK creates when a message names none the app created and the app's manifest names
    /// none either (`fcm_fallback_notification_channel`, "Miscellaneous", `IMPORTANCE_DEFAULT`: firebase-android-sdk).
    public static let firebaseFallback = AndroidChannel(id: "fcm_fallback_notification_channel", name: "Miscellaneous", importance: .default)

    /// The most channels one app declares, and the longest id and name: bounds on what a stranger may store.
    public static let maximumChannels = 100
    public static let maximumIDLength = 256
    public static let maximumNameLength = 256
}

extension AndroidChannel {
    /// `{"id": …, "name": …, "importance": "high"}`; `name` defaults to the id, `importance` to `default`.
    public init(json reader: JSONReader) throws(JSONReadError) {
        try reader.rejectUnknownMembers(["id", "name", "importance"])
        let idReader = try reader.member("id")
        id = try idReader.string()
        guard !id.isEmpty, id.utf8.count <= Self.maximumIDLength else {
            throw idReader.failure("a channel id is 1 to \(Self.maximumIDLength) bytes")
        }
        name = try reader.optionalMember("name")?.string() ?? id
        guard name.utf8.count <= Self.maximumNameLength else {
            throw reader.failure("a channel name is at most \(Self.maximumNameLength) bytes")
        }
        importance = .default
        if let member = try reader.optionalMember("importance") {
            let text = try member.string()
            guard let value = Importance(rawValue: text) else {
                throw member.failure(
                    "unknown importance \"\(text.prefix(40))\" (expected \(Importance.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            importance = value
        }
    }

    public var json: JSONValue {
        .object(JSONObject([("id", .string(id)), ("name", .string(name)), ("importance", .string(importance.rawValue))]))
    }

    /// A list of channels, each id once.
    public static func list(json reader: JSONReader) throws(JSONReadError) -> [AndroidChannel] {
        let elements = try reader.array()
        guard elements.count <= maximumChannels else { throw reader.failure("an app declares at most \(maximumChannels) channels") }
        var channels: [AndroidChannel] = []
        var seen = Set<String>()
        for element in elements {
            let channel = try AndroidChannel(json: element)
            guard seen.insert(channel.id).inserted else { throw element.failure("channel \"\(channel.id.prefix(40))\" is declared twice") }
            channels.append(channel)
        }
        return channels
    }
}
