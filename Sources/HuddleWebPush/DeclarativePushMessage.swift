public import Foundation
public import HuddleCore

/// A Declarative Web Push message (Safari 18.4): a push whose JSON describes its notification, shown by the browser
/// with no service worker. Read by WebKit's rules (`NotificationJSONParser.cpp`, docs/web-push-research.md §6).
public struct DeclarativePushMessage: Sendable, Hashable {
    public var title: String
    /// Where a tap goes: an absolute URL.
    public var navigate: String
    public var body: String?
    public var lang: String?
    public var dir: String?
    /// A notification with the tag of an earlier one replaces it.
    public var tag: String?
    public var icon: String?
    public var silent: Bool?
    /// Whether the web app's service worker may change it first; a message that is not mutable is shown as it is.
    public var mutable: Bool
    public var data: JSONValue?
    /// The badge the web app's icon shows.
    public var appBadge: Int?

    /// What a push's plaintext is to the browser.
    public enum Reading: Sendable, Hashable {
        /// A declarative message, shown as it says.
        case declarative(DeclarativePushMessage)
        /// JSON that says it is declarative (`web_push`) but breaks a rule: Safari sends it to the service worker as any
        /// other push, and says why in its console.
        case invalid(String)
        /// Anything else: the service worker's `push` event gets it.
        case other
    }

    /// The value of `web_push` a declarative message carries (RFC 8030's number).
    public static let magicNumber: Int64 = 8030

    /// Reads a push's plaintext: declarative when it is a JSON object with a `web_push` member.
    public static func read(_ plaintext: Data) -> Reading {
        guard plaintext.first == UInt8(ascii: "{"), let json = try? JSONParser.parse(plaintext), case .object(let object) = json,
            let magic = object["web_push"]
        else { return .other }
        do {
            return .declarative(try DeclarativePushMessage(object, magic: magic))
        } catch {
            return .invalid(error.description)
        }
    }

    /// Why a declarative message is invalid, naming the member.
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    init(_ object: JSONObject, magic: JSONValue) throws(Invalid) {
        switch magic {
        case .integer(Self.magicNumber): break
        case .double(let value) where value == Double(Self.magicNumber): break
        default: throw Invalid("web_push: must be the number 8030, found \(Self.describe(magic))")
        }
        guard case .object(let notification)? = object["notification"] else {
            throw Invalid("notification: the member is missing or is not an object")
        }
        guard case .string(let title)? = notification["title"], !title.isEmpty else {
            throw Invalid("notification.title: the member is missing or is an empty string")
        }
        guard case .string(let navigate)? = notification["navigate"], Self.isAbsoluteURL(navigate) else {
            throw Invalid("notification.navigate: the member is missing or is not a valid absolute URL")
        }
        self.title = title
        self.navigate = navigate
        body = try Self.string(notification, "body")
        lang = try Self.string(notification, "lang")
        tag = try Self.string(notification, "tag")
        dir = try Self.string(notification, "dir")
        if let dir, !["auto", "ltr", "rtl"].contains(dir) { throw Invalid("notification.dir: must be \"auto\", \"ltr\" or \"rtl\", found \"\(dir.prefix(20))\"") }
        icon = try Self.string(notification, "icon")
        if let icon, !Self.isAbsoluteURL(icon) { throw Invalid("notification.icon: not a valid URL") }
        silent = try Self.bool(notification, "silent")
        mutable = try Self.bool(notification, "mutable") ?? false
        data = notification["data"]
        switch notification["app_badge"] {
        case nil: appBadge = nil
        case .integer(let value)? where value >= 0 && value <= Int64(Int32.max): appBadge = Int(value)
        case .string(let text)? where !text.isEmpty && text.utf8.count <= 9 && text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }): appBadge = Int(text)
        case let other?: throw Invalid("notification.app_badge: must be a non-negative integer or a string of digits, found \(Self.describe(other))")
        }
    }

    private static func string(_ object: JSONObject, _ key: String) throws(Invalid) -> String? {
        switch object[key] {
        case nil: return nil
        case .string(let text)?: return text
        case let other?: throw Invalid("notification.\(key): must be a string, found \(describe(other))")
        }
    }

    private static func bool(_ object: JSONObject, _ key: String) throws(Invalid) -> Bool? {
        switch object[key] {
        case nil: return nil
        case .bool(let value)?: return value
        case let other?: throw Invalid("notification.\(key): must be a boolean, found \(describe(other))")
        }
    }

    private static func describe(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): "\"\(text.prefix(40))\""
        case .integer(let number): String(number)
        default: value.kindDescription
        }
    }

    /// A URL parsed with no base: a scheme, `:`, and a URL Foundation reads.
    static func isAbsoluteURL(_ text: String) -> Bool {
        guard text.utf8.count <= 2048, let colon = text.firstIndex(of: ":"), colon != text.startIndex,
            text[..<colon].utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }),
            let first = text.utf8.first, (first >= 0x61 && first <= 0x7A) || (first >= 0x41 && first <= 0x5A)
        else { return false }
        return URL(string: text) != nil
    }
}

extension DeclarativePushMessage {
    /// The notification a declarative message shows, as Safari shows it on an iPhone: its title and body, its tag as its
    /// identifier (a later one of the same tag replaces it), its badge as the web app's, no sound when `silent`.
    public func notificationRequest(messageID: String) -> NotificationRequest {
        var userInfo = JSONObject([("navigate", .string(navigate))])
        if let data { userInfo["data"] = data }
        return NotificationRequest(
            identifier: tag.flatMap { $0.isEmpty ? nil : $0 } ?? messageID,
            content: NotificationContent(
                title: .plain(title), body: body.map(LocalizableText.plain), badge: appBadge,
                sound: silent == true ? nil : NotificationSound(name: "default"), userInfo: userInfo))
    }
}
