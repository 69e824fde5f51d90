/// What Firebase Cloud Messaging knows of an app installed on a device, Android or iPhone: the registration token
/// its SDK got, the Firebase project it registered with, and (on Android) the notification channels it created.
public struct FirebaseInstallation: Sendable, Hashable {
    /// The FCM registration token messages are sent to; the store gives every app one when it is installed.
    public var registrationToken: String?
    /// The project (sender) the token belongs to: a message from another project is `SENDER_ID_MISMATCH`. `nil`
    /// accepts any project, so that a test needs no set-up for it.
    public var project: String?
    /// The channels the app created (Android).
    public var channels: [AndroidChannel]
    /// The channel its manifest names for FCM (`com.google.firebase.messaging.default_notification_channel_id`), if any.
    public var defaultChannelID: String?
    /// The Expo project (`@owner/slug`) its Expo push token belongs to, when the app named one: an app's iPhone and
    /// Android builds name the same to be sent to in one request.
    public var expoProject: String?

    public init(registrationToken: String? = nil, project: String? = nil, channels: [AndroidChannel] = [], defaultChannelID: String? = nil) {
        self.registrationToken = registrationToken
        self.project = project
        self.channels = channels
        self.defaultChannelID = defaultChannelID
    }

    /// Whether a message or subscription of `project` may reach the app: its own project's, or any when it named none
    /// (FCM's `SENDER_ID_MISMATCH` otherwise).
    public func accepts(project: String) -> Bool {
        self.project.map { $0 == project } ?? true
    }

    /// The channel a notification that asks for `id` posts to, as the Firebase SDK chooses it: the one asked for if
    /// the app created it, else the manifest's default if created, else the SDK's fallback channel.
    public func channel(for id: String?) -> AndroidChannel {
        if let id, let channel = channels.first(where: { $0.id == id }) { return channel }
        if let defaultChannelID, let channel = channels.first(where: { $0.id == defaultChannelID }) { return channel }
        return channels.first(where: { $0.id == AndroidChannel.firebaseFallback.id }) ?? .firebaseFallback
    }

    /// A new registration token, shaped as FCM's are (an instance id, a colon, `APA91b` and more): 163 characters of
    /// letters, digits, `-` and `_`.
    public static func newRegistrationToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        func random(_ count: Int) -> String {
            String(decoding: (0..<count).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] }, as: UTF8.self)
        }
        return random(22) + ":APA91b" + random(134)
    }

    /// The Firebase installation ID a registration token belongs to: the part before its `:` (a token is the FID, a
    /// colon and more, as the Firebase SDKs check); `nil` for a token without one.
    public static func installationID(of registrationToken: String) -> Substring? {
        guard let colon = registrationToken.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let id = registrationToken[..<colon]
        return isInstallationID(id) ? id : nil
    }

    /// An installation ID's shape: 1 to 64 letters, digits, `-` or `_` (Firebase's are 22).
    public static func isInstallationID(_ id: some StringProtocol) -> Bool {
        !id.isEmpty && id.utf8.count <= 64
            && id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F }
    }

    /// The range of registration tokens that belong to an installation ID, compared by bytes: from `ID:` up to `ID;`
    /// (`;` follows `:`).
    public static func registrationTokenBounds(installationID: String) -> Range<String> {
        (installationID + ":")..<(installationID + ";")
    }

    /// Whether nothing but a token is set (what every app installed before FCM existed in Huddle has).
    var isTokenOnly: Bool { project == nil && channels.isEmpty && defaultChannelID == nil && expoProject == nil }
}

extension FirebaseInstallation {
    /// The members the device API's app takes (`firebaseProject`, `channels`, `defaultChannel`, `expoProject`), read onto
    /// `self`.
    public mutating func update(json reader: JSONReader) throws(JSONReadError) {
        if let member = try reader.optionalMember("firebaseProject") {
            if case .null = member.value {
                project = nil
            } else {
                let name = try member.string()
                guard Self.isValidProjectID(name) else {
                    throw member.failure("a Firebase project id is 1 to 100 letters, digits, '-', '_' or '.'")
                }
                project = name
            }
        }
        if let member = try reader.optionalMember("channels") { channels = try AndroidChannel.list(json: member) }
        if let member = try reader.optionalMember("defaultChannel") {
            if case .null = member.value {
                defaultChannelID = nil
            } else {
                let id = try member.string()
                guard !id.isEmpty, id.utf8.count <= AndroidChannel.maximumIDLength else {
                    throw member.failure("a channel id is 1 to \(AndroidChannel.maximumIDLength) bytes")
                }
                defaultChannelID = id
            }
        }
        if let member = try reader.optionalMember("expoProject") {
            let name = try member.string()
            guard Self.isValidExpoProject(name) else {
                throw member.failure("an Expo project is @owner/slug: at most 100 letters, digits, '-', '_' and '.', with one '@' and one '/'")
            }
            expoProject = name
        }
    }

    /// An Expo project's full name, `@owner/slug`, bounded.
    public static func isValidExpoProject(_ name: String) -> Bool {
        let parts = name.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        return name.hasPrefix("@") && name.utf8.count <= 100 && parts.count == 2 && parts.allSatisfy { isValidProjectID($0) }
    }

    /// A project id as `projects/{project}` names it: bounded, and safe in a path.
    public static func isValidProjectID(_ name: some StringProtocol) -> Bool {
        !name.isEmpty && name.utf8.count <= 100
            && name.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E }
    }
}
