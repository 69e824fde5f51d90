public import HuddleCore

/// One message of a request to Expo's push API (`POST /--/api/v2/push/send`), every field of Expo's message format
/// (docs/expo.md, "Messages"). Only `to` is required; fields Expo's page does not list (`_displayInForeground`, which
/// the Python SDK sends, or a third party's) are taken and ignored, as Expo takes them.
public struct ExpoMessage: Sendable, Hashable {
    public enum Priority: String, Sendable, Hashable, CaseIterable {
        case `default`, normal, high
    }

    /// `sound`: the default sound, a named one (with its extension), or an object for a critical alert.
    public enum Sound: Sendable, Hashable {
        case named(String)
        case critical(name: String?, volume: Double?, isCritical: Bool)
    }

    /// The tokens, one ticket each, in order.
    public var to: [String]
    /// Whether `to` was one string rather than an array.
    public var toIsSingle: Bool
    public var title: String?
    public var body: String?
    public var subtitle: String?
    public var data: JSONObject?
    public var sound: Sound?
    public var badge: Int?
    /// Seconds the message may wait for its device; beats `expiration`.
    public var ttl: Int?
    /// UNIX seconds after which the message is dropped.
    public var expiration: Int64?
    public var priority: Priority
    public var channelID: String?
    public var categoryID: String?
    public var mutableContent: Bool
    public var contentAvailable: Bool
    public var interruptionLevel: InterruptionLevel?
    public var icon: String?
    public var image: String?
    public var collapseID: String?
    public var tag: String?

    /// The most bytes of a token that a ticket repeats.
    public static let longestToken = 256
    /// The most seconds of `ttl` (Expo documents none; APNs and FCM keep a message at most four weeks).
    public static let longestTTL = 2_419_200

    /// Reads one message; every error names the member at fault under `path`.
    public init(json reader: JSONReader) throws(JSONReadError) {
        guard case .object = reader.value else { throw reader.failure("expected a message object, found \(reader.value.kindDescription)") }
        let target = try reader.member("to")
        switch target.value {
        case .string(let token):
            to = [token]
            toIsSingle = true
        case .array:
            to = try target.array().map { element throws(JSONReadError) in try element.string() }
            toIsSingle = false
        default:
            throw target.failure("expected a push token or an array of push tokens, found \(target.value.kindDescription)")
        }
        func text(_ key: String) throws(JSONReadError) -> String? { try reader.optionalMember(key)?.string() }
        title = try text("title")
        body = try text("body")
        subtitle = try text("subtitle")
        if let member = try reader.optionalMember("data") { data = try member.object() }
        if let member = try reader.optionalMember("sound") {
            switch member.value {
            case .string(let name): sound = .named(name)
            case .object:
                sound = .critical(
                    name: try member.optionalMember("name")?.string(), volume: try member.optionalMember("volume")?.number(),
                    isCritical: try member.optionalMember("critical")?.bool() ?? false)
            default: throw member.failure("expected \"default\", a sound's file name or {critical, name, volume}, found \(member.value.kindDescription)")
            }
        }
        if let member = try reader.optionalMember("badge") {
            let badge = try member.integer()
            guard badge >= 0, badge <= Int(Int32.max) else { throw member.failure("expected a badge count from 0 to \(Int32.max)") }
            self.badge = badge
        }
        if let member = try reader.optionalMember("ttl") {
            let ttl = try member.integer()
            guard ttl >= 0, ttl <= Self.longestTTL else { throw member.failure("expected seconds from 0 to \(Self.longestTTL)") }
            self.ttl = ttl
        }
        if let member = try reader.optionalMember("expiration") {
            let expiration = try member.integer()
            guard expiration >= 0, expiration <= 4_102_444_800 else { throw member.failure("expected a UNIX time in seconds, before 2100") }
            self.expiration = Int64(expiration)
        }
        if let member = try reader.optionalMember("priority") {
            guard let priority = Priority(rawValue: try member.string()) else { throw member.failure("expected one of default, normal, high") }
            self.priority = priority
        } else {
            priority = .default
        }
        channelID = try text("channelId")
        categoryID = try text("categoryId")
        mutableContent = try reader.optionalMember("mutableContent")?.bool() ?? false
        contentAvailable = try reader.optionalMember("_contentAvailable")?.bool() ?? false
        if let member = try reader.optionalMember("interruptionLevel") {
            guard let level = InterruptionLevel(apnsName: try member.string()) else {
                throw member.failure("expected one of active, critical, passive, time-sensitive")
            }
            interruptionLevel = level
        }
        icon = try text("icon")
        image = try reader.optionalMember("richContent")?.optionalMember("image")?.string()
        collapseID = try text("collapseId")
        tag = try text("tag")
    }

    /// The bytes of its texts and its data as JSON: what both the APNs payload and the FCM data Expo makes of it carry
    /// at least, so that a message past a size limit is known without making either.
    public var textBytes: Int {
        [title, subtitle, body].reduce(0) { $0 + ($1?.utf8.count ?? 0) } + (data.map { JSONValue.object($0).jsonUTF8().count } ?? 0)
    }

    /// Whether it shows something (a notification message); without, it is a headless background one.
    public var hasAlert: Bool { title != nil || body != nil || subtitle != nil }
}

/// The messages of one request to `push/send`: one message object or an array of them.
public struct ExpoPushRequest: Sendable {
    public var messages: [ExpoMessage]
    /// Whether the body was one object, whose one recipient's ticket is answered as an object rather than an array.
    public var isSingleObject: Bool

    /// The most notifications one request carries, counting each token of a `to` array (Expo's limit; Node's SDK
    /// chunks by recipients).
    public static let maximumNotifications = 100

    /// Reads a request's JSON.
    /// - Throws: ``ExpoRequestError`` `VALIDATION_ERROR` naming the member at fault, or
    ///   `PUSH_TOO_MANY_NOTIFICATIONS`.
    public init(json: JSONValue) throws(ExpoRequestError) {
        let reader = JSONReader(json)
        let elements: [JSONReader]
        switch json {
        case .array:
            elements = (try? reader.array()) ?? []
            isSingleObject = false
        case .object:
            elements = [reader]
            isSingleObject = true
        default:
            throw ExpoRequestError(.validationError, "expected a message object or an array of messages, found \(json.kindDescription)")
        }
        // Counted before any message is read: an oversized request costs no more than its count.
        // A message counts once at least: an empty `to` sends nothing, but its message was still read.
        var count = 0
        for element in elements {
            if case .array(let tokens)? = try? element.optionalMember("to")?.value { count += max(1, tokens.count) } else { count += 1 }
        }
        guard count <= Self.maximumNotifications else {
            throw ExpoRequestError(
                .tooManyNotifications, "You are trying to send \(count) notifications; a request may carry at most \(Self.maximumNotifications).")
        }
        do {
            messages = try elements.map { element throws(JSONReadError) in try ExpoMessage(json: element) }
        } catch {
            throw .validation(error)
        }
    }

    /// Every recipient, in ticket order: the message and the token.
    public var recipients: [(message: ExpoMessage, token: String)] {
        messages.flatMap { message in message.to.map { (message, $0) } }
    }

    /// Whether the answer's `data` is one ticket object: one message object with a one-string `to` (Expo's page: "one
    /// push ticket object, if you send a single message to a single recipient").
    public var answersSingleTicket: Bool { isSingleObject && messages.count == 1 && messages[0].toIsSingle }
}

/// A request to `push/getReceipts`: `{"ids": [...]}`.
public struct ExpoReceiptRequest: Sendable {
    public var ids: [String]
    /// Expo's limit.
    public static let maximumIDs = 1_000

    public init(json: JSONValue) throws(ExpoRequestError) {
        let reader = JSONReader(json)
        do {
            let ids = try reader.member("ids")
            guard case .array(let elements) = ids.value else { throw ids.failure("expected an array of receipt ids") }
            guard elements.count <= Self.maximumIDs else {
                throw ExpoRequestError(
                    .tooManyReceipts, "You are trying to get \(elements.count) push receipts; a request may ask for at most \(Self.maximumIDs).")
            }
            self.ids = try ids.array().map { element throws(JSONReadError) in try element.string() }
        } catch let error as JSONReadError {
            throw .validation(error)
        } catch let error as ExpoRequestError {
            throw error
        } catch {
            throw ExpoRequestError(.validationError, "\(error)")
        }
    }
}
