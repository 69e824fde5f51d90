public import Foundation

/// A device registered with a server: its push token and the hash of the secret its owner uses.
public struct DeviceRecord: Sendable, Hashable {
    /// 64 lowercase hexadecimal characters, like an APNs device token.
    public var token: String
    /// SHA-256 of the device secret, hex; the secret itself is never stored.
    public var secretHash: String
    public var name: String
    public var createdAt: Date

    public init(token: String, secretHash: String, name: String, createdAt: Date) {
        self.token = token
        self.secretHash = secretHash
        self.name = name
        self.createdAt = createdAt
    }
}

/// An app installed on a device: its topic (bundle identifier), the person's settings, the categories it
/// registered and the localization files it uploaded.
public struct AppRecord: Sendable, Hashable {
    public var topic: String
    public var developmentLanguage: String
    public var settings: AppSettings
    public var categories: [NotificationCategory]
    /// Uploaded `.strings`, `.stringsdict` and `.xcstrings` files by path (`de.lproj/Localizable.strings`).
    public var localizationFiles: [String: Data]

    public init(
        topic: String, developmentLanguage: String = "en", settings: AppSettings = AppSettings(),
        categories: [NotificationCategory] = [], localizationFiles: [String: Data] = [:]
    ) {
        self.topic = topic
        self.developmentLanguage = developmentLanguage
        self.settings = settings
        self.categories = categories
        self.localizationFiles = localizationFiles
    }
}

/// A provider's signing key (APNs token authentication): the public half of a team's ES256 key, by
/// its key identifier, and the topics it may send to.
public struct SigningKeyRecord: Sendable, Hashable {
    /// The 10-character key identifier (JWT `kid`).
    public var keyID: String
    /// The 10-character team identifier (JWT `iss`).
    public var teamID: String
    /// The P-256 public key, PEM.
    public var publicKeyPEM: String
    /// Topics the key may send to; empty for any.
    public var topics: [String]
    public var createdAt: Date

    public init(keyID: String, teamID: String, publicKeyPEM: String, topics: [String], createdAt: Date) {
        self.keyID = keyID
        self.teamID = teamID
        self.publicKeyPEM = publicKeyPEM
        self.topics = topics
        self.createdAt = createdAt
    }
}
