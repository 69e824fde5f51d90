public import Foundation

/// Apple's two push environments: development (`api.sandbox.push.apple.com`, what a build run from Xcode
/// registers with) and production (`api.push.apple.com`, TestFlight and App Store builds). A device token
/// belongs to one of them; the other answers it `BadDeviceToken`.
public enum APNsEnvironment: String, Sendable, Hashable, CaseIterable, Comparable {
    case development, production

    public static func < (lhs: APNsEnvironment, rhs: APNsEnvironment) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Apple's provider API host of the environment.
    public var host: String {
        switch self {
        case .development: "api.sandbox.push.apple.com"
        case .production: "api.push.apple.com"
        }
    }

    /// Apple's channel-management host of the environment (broadcast channels; its port is 2195 in
    /// development, 2196 in production).
    public var channelHost: String {
        switch self {
        case .development: "api-manage-broadcast.sandbox.push.apple.com"
        case .production: "api-manage-broadcast.push.apple.com"
        }
    }
}

extension JSONReader {
    /// An environment by its name, as a registration, a key or a stored record writes it.
    public func apnsEnvironment() throws(JSONReadError) -> APNsEnvironment {
        let name = try string()
        guard let environment = APNsEnvironment(rawValue: name) else {
            throw failure("expected development (a build run from Xcode) or production (TestFlight, the App Store), found \"\(name.prefix(40))\"")
        }
        return environment
    }
}


/// A device registered with a server: its push token and the hash of the secret its owner uses.
public struct DeviceRecord: Sendable, Hashable {
    /// 64 lowercase hexadecimal characters, like an APNs device token.
    public var token: String
    /// SHA-256 of the device secret, hex; the secret itself is never stored.
    public var secretHash: String
    public var name: String
    public var createdAt: Date
    /// The environment its token belongs to.
    public var environment: APNsEnvironment
    /// An iPhone, or an Android phone (whose apps get messages through FCM only): the API's `platform`.
    public var kind: DeviceKind

    public init(
        token: String, secretHash: String, name: String, createdAt: Date, environment: APNsEnvironment = .development, kind: DeviceKind = .iPhone
    ) {
        self.kind = kind
        self.token = token
        self.secretHash = secretHash
        self.name = name
        self.createdAt = createdAt
        self.environment = environment
    }
}

/// An app installed on a device: its topic (bundle identifier), the person's settings, the categories it
/// registered and the localization files it uploaded.
public struct AppRecord: Sendable, Hashable {
    public var topic: String
    /// The name people see ("Messages"); `nil` shows the last part of the topic.
    public var displayName: String?
    public var developmentLanguage: String
    public var settings: AppSettings
    public var categories: [NotificationCategory]
    /// Uploaded `.strings`, `.stringsdict` and `.xcstrings` files by path (`de.lproj/Localizable.strings`).
    public var localizationFiles: [String: Data]
    /// Its Live Activity types, as its `ActivityAttributes` declare them.
    public var activities: ActivityDeclarations
    /// What its entitlements let its notifications do (Time Sensitive, critical alerts).
    public var capabilities: AppCapabilities
    /// Its FCM registration token, Firebase project and Android notification channels.
    public var firebase: FirebaseInstallation
    /// For a web app (its topic is its origin): its push subscription, current or ended.
    public var webPush: WebPushSubscription?

    public init(
        topic: String, displayName: String? = nil, developmentLanguage: String = "en", settings: AppSettings = AppSettings(),
        categories: [NotificationCategory] = [], localizationFiles: [String: Data] = [:], activities: ActivityDeclarations = ActivityDeclarations(),
        capabilities: AppCapabilities = AppCapabilities(), firebase: FirebaseInstallation = FirebaseInstallation(), webPush: WebPushSubscription? = nil
    ) {
        self.firebase = firebase
        self.webPush = webPush
        self.capabilities = capabilities
        self.topic = topic
        self.displayName = displayName
        self.developmentLanguage = developmentLanguage
        self.settings = settings
        self.categories = categories
        self.localizationFiles = localizationFiles
        self.activities = activities
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
    /// The environments the key may be used in (Apple lets a key be restricted to one); both by default.
    public var environments: Set<APNsEnvironment>

    public init(
        keyID: String, teamID: String, publicKeyPEM: String, topics: [String], createdAt: Date,
        environments: Set<APNsEnvironment> = Set(APNsEnvironment.allCases)
    ) {
        self.keyID = keyID
        self.teamID = teamID
        self.publicKeyPEM = publicKeyPEM
        self.topics = topics
        self.createdAt = createdAt
        self.environments = environments
    }
}

/// A Google service account's key registered with the server (FCM authentication): the public half of its RSA key,
/// by the key's id (`private_key_id`, the JWT `kid`), the account's email and the Firebase project it sends for.
public struct ServiceAccountRecord: Sendable, Hashable {
    public var keyID: String
    public var project: String
    public var clientEmail: String
    /// The RSA public key, PEM.
    public var publicKeyPEM: String
    public var createdAt: Date

    public init(keyID: String, project: String, clientEmail: String, publicKeyPEM: String, createdAt: Date) {
        self.keyID = keyID
        self.project = project
        self.clientEmail = clientEmail
        self.publicKeyPEM = publicKeyPEM
        self.createdAt = createdAt
    }
}

/// An app that an FCM registration token names: its device, its topic, and what FCM knows of it.
public struct FirebaseRecipient: Sendable, Hashable {
    public var device: DeviceRecord
    public var app: String
    public var installation: FirebaseInstallation

    public init(device: DeviceRecord, app: String, installation: FirebaseInstallation) {
        self.device = device
        self.app = app
        self.installation = installation
    }
}

/// The web app an endpoint's subscription belongs to, with its device.
public struct WebPushRecipient: Sendable, Hashable {
    public var device: DeviceRecord
    public var app: String
    public var subscription: WebPushSubscription

    public init(device: DeviceRecord, app: String, subscription: WebPushSubscription) {
        self.device = device
        self.app = app
        self.subscription = subscription
    }
}

/// One committed change to a device's center. Changes are numbered per device, 1, 2, 3… without gaps and
/// in commit order, so that every server sharing a store can apply them in the same order, and a live
/// stream can name its position by a change number (the SSE event id).
public struct DeviceChange: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// A notification was delivered; its stamp's sequence is the change number.
        case delivered(DeliveredNotification)
        /// Notifications of an app were removed (the identifiers that existed).
        case removed(app: String, identifiers: [String])
        /// An app was installed or changed; the record as it is now.
        case appSaved(AppRecord)
        /// An app was removed with its notifications.
        case appDeleted(topic: String)
        /// A push that shows nothing arrived, and the device did what the event says.
        case event(DeviceEvent)
        /// The device's Live Activities changed; all of them as they are now.
        case activities([LiveActivity])
        /// The person changed the device's settings (summary, Focus, layout, time zone); all of them as they are now.
        /// Held notifications that no summary holds under them any more are in the center from this change on.
        case settings(DeviceSettings)
        /// A scheduled summary came: the held notifications it names are in the center from this change on.
        case summary(ScheduledSummary)
        /// A change whose subject a later change already replaced or removed (a notification delivered and
        /// then removed, an app saved and then deleted): applying it changes nothing.
        case superseded
    }

    public var number: UInt64
    public var kind: Kind

    public init(number: UInt64, kind: Kind) {
        self.number = number
        self.kind = kind
    }
}

/// A device's whole state at one change number, read in one transaction: what a server loads before it
/// follows the device's later changes.
public struct DeviceSnapshot: Sendable, Hashable {
    public var device: DeviceRecord
    public var apps: [AppRecord]
    /// Oldest first (by delivery sequence).
    public var notifications: [DeliveredNotification]
    /// The number of the last change the snapshot includes.
    public var lastChange: UInt64
    /// The device's latest events, oldest first: at most ``DeviceEvent/keptPerDevice``, and only those the
    /// change journal still keeps.
    public var events: [RecordedEvent]
    /// Its Live Activities, in the order they started.
    public var activities: [LiveActivity]
    /// The person's settings of the device.
    public var settings: DeviceSettings
    /// The latest scheduled summary that came.
    public var summary: ScheduledSummary?

    public init(
        device: DeviceRecord, apps: [AppRecord], notifications: [DeliveredNotification], lastChange: UInt64, events: [RecordedEvent] = [],
        activities: [LiveActivity] = [], settings: DeviceSettings = .newDevice, summary: ScheduledSummary? = nil
    ) {
        self.summary = summary
        self.device = device
        self.apps = apps
        self.notifications = notifications
        self.lastChange = lastChange
        self.events = events
        self.activities = activities
        self.settings = settings
    }
}

/// What a store shared by several servers tells each of them about changes the others committed.
public enum ChangeNotice: Sendable, Hashable {
    /// A device's changes up to `number` are committed.
    case changed(device: String, number: UInt64)
    /// A device was deleted.
    case deviceDeleted(String)
    /// Notices may have been missed (the listening connection was lost): check every device.
    case resync
}
