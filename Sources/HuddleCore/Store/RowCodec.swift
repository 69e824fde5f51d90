public import Foundation

/// How the databases keep records in columns, shared by every store so that a database written by one
/// backend means the same to another: dates as milliseconds since 1970, settings, categories, contents and
/// topic lists as JSON text in Huddle's own writer.
///
/// Reading checks what it reads: a stored value that does not decode is ``StoreError`` `.corrupt`, naming
/// the record, never a crash.
public enum RowCodec {
    // MARK: Writing

    public static func settingsText(_ app: AppRecord) -> String {
        app.settings.json.jsonText()
    }

    public static func categoriesText(_ app: AppRecord) -> String {
        JSONValue.array(app.categories.map(\.json)).jsonText()
    }

    /// `nil` for an app that declares no Live Activity types.
    public static func activityTypesText(_ app: AppRecord) -> String? {
        app.activities == ActivityDeclarations() ? nil : app.activities.json.jsonText()
    }

    /// An app's declared Live Activity types as stored (`nil`: none).
    public static func activityDeclarations(_ text: String?, app topic: String) throws(StoreError) -> ActivityDeclarations {
        guard let text else { return ActivityDeclarations() }
        do {
            return try ActivityDeclarations(json: JSONReader(try parse(text, what: "activity types of \(topic)")))
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.corrupt, "stored activity types of \(topic) cannot be read: \(error)")
        }
    }

    public static func contentText(_ content: NotificationContent) -> String {
        content.json.jsonText()
    }

    public static func topicsText(_ key: SigningKeyRecord) -> String {
        JSONValue.array(key.topics.map(JSONValue.string)).jsonText()
    }

    // MARK: Reading

    public static func device(
        token: String, secretHash: String, name: String, createdAt: Int64, environment: String, platform: String, androidVersion: Int?
    ) throws(StoreError) -> DeviceRecord {
        guard let environment = APNsEnvironment(rawValue: environment) else {
            throw StoreError(.corrupt, "stored device \(token) has an unknown environment \"\(environment)\"")
        }
        guard let kind = DeviceKind(name: platform, androidVersion: androidVersion) else {
            throw StoreError(.corrupt, "stored device \(token) has an unknown platform \"\(platform)\"")
        }
        return DeviceRecord(
            token: token, secretHash: secretHash, name: name, createdAt: Date(milliseconds: createdAt), environment: environment, kind: kind)
    }

    /// A key's environments as stored: `nil` for both (every key made before keys could be restricted).
    public static func environmentsText(_ key: SigningKeyRecord) -> String? {
        key.environments == Set(APNsEnvironment.allCases) ? nil : JSONValue.array(key.environments.sorted().map { .string($0.rawValue) }).jsonText()
    }

    /// An app from its row, with its localization files (by path) read from theirs.
    public static func app(
        topic: String, displayName: String?, developmentLanguage: String, settingsText: String, categoriesText: String,
        activityTypesText: String?, capabilitiesText: String? = nil, fcmToken: String? = nil, firebaseText: String? = nil,
        webPushID: String? = nil, webPushText: String? = nil, localizationFiles: [String: Data]
    ) throws(StoreError) -> AppRecord {
        let activities = try activityDeclarations(activityTypesText, app: topic)
        let settingsJSON = try parse(settingsText, what: "settings of \(topic)")
        let categoriesJSON = try parse(categoriesText, what: "categories of \(topic)")
        var settings = AppSettings()
        let categories: [NotificationCategory]
        do {
            try settings.update(json: JSONReader(settingsJSON))
            categories = try JSONReader(categoriesJSON).array().map { element throws(JSONReadError) in try NotificationCategory(json: element) }
        } catch {
            throw StoreError(.corrupt, "stored app \(topic) cannot be read: \(error)")
        }
        return AppRecord(
            topic: topic, displayName: displayName, developmentLanguage: developmentLanguage, settings: settings,
            categories: categories, localizationFiles: localizationFiles, activities: activities,
            capabilities: try AppCapabilities.stored(capabilitiesText, app: topic),
            firebase: try FirebaseInstallation.stored(token: fcmToken, firebaseText, app: topic),
            webPush: try WebPushSubscription.stored(id: webPushID, webPushText, app: topic))
    }

    /// - Parameters:
    ///   - held: the `held` column (``ArrivalMark/heldColumn``): held for the scheduled summary.
    ///   - silencedBy: the `silenced_by` column: the Focus that silenced it.
    public static func notification(
        identifier: String, topic: String, sequence: Int64, deliveredAt: Int64, contentText: String, held: Bool = false, silencedBy: String? = nil
    ) throws(StoreError) -> DeliveredNotification {
        let contentJSON = try parse(contentText, what: "notification \(identifier)")
        let content: NotificationContent
        do {
            content = try NotificationContent(json: JSONReader(contentJSON))
        } catch {
            throw StoreError(.corrupt, "stored notification \(identifier) cannot be read: \(error)")
        }
        return DeliveredNotification(
            app: topic, request: NotificationRequest(identifier: identifier, content: content),
            stamp: DeliveryStamp(date: Date(milliseconds: deliveredAt), sequence: UInt64(sequence)),
            mark: ArrivalMark(held: held, silencedBy: silencedBy))
    }

    /// An app's settings alone, as stored (what deciding a notification's arrival needs of it).
    public static func appSettings(_ text: String, app topic: String) throws(StoreError) -> AppSettings {
        var settings = AppSettings()
        do {
            try settings.update(json: JSONReader(try parse(text, what: "settings of \(topic)")))
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.corrupt, "stored app \(topic) cannot be read: \(error)")
        }
        return settings
    }

    public static func channel(
        id: String, app: String, environment: String, storagePolicy: Int64, createdAt: Int64, lastMessage: String?
    ) throws(StoreError) -> BroadcastChannel {
        guard let environment = APNsEnvironment(rawValue: environment),
            let policy = BroadcastChannel.StoragePolicy(rawValue: Int(storagePolicy))
        else {
            throw StoreError(.corrupt, "stored channel \(id) has an unknown environment \"\(environment)\" or storage policy \(storagePolicy)")
        }
        return BroadcastChannel(
            id: id, app: app, environment: environment, storagePolicy: policy, createdAt: Date(milliseconds: createdAt),
            lastMessage: try StoredBroadcast.stored(lastMessage, channel: id))
    }

    public static func signingKey(
        keyID: String, teamID: String, publicKeyPEM: String, topicsText: String, createdAt: Int64, environmentsText: String?
    ) throws(StoreError) -> SigningKeyRecord {
        var environments = Set(APNsEnvironment.allCases)
        if let environmentsText {
            let names = try parse(environmentsText, what: "environments of key \(keyID)")
            let read: [APNsEnvironment]
            do {
                read = try JSONReader(names).array().map { element throws(JSONReadError) in try element.apnsEnvironment() }
            } catch {
                throw StoreError(.corrupt, "stored environments of key \(keyID) cannot be read: \(error)")
            }
            guard !read.isEmpty else { throw StoreError(.corrupt, "stored key \(keyID) may be used in no environment") }
            environments = Set(read)
        }
        let topicsJSON = try parse(topicsText, what: "topics of key \(keyID)")
        let topics: [String]
        do {
            topics = try JSONReader(topicsJSON).array().map { element throws(JSONReadError) in try element.string() }
        } catch {
            throw StoreError(.corrupt, "stored topics of key \(keyID) cannot be read: \(error)")
        }
        return SigningKeyRecord(
            keyID: keyID, teamID: teamID, publicKeyPEM: publicKeyPEM, topics: topics, createdAt: Date(milliseconds: createdAt),
            environments: environments)
    }

    /// Stored JSON text.
    private static func parse(_ text: String, what: String) throws(StoreError) -> JSONValue {
        do {
            return try JSONParser.parse(text)
        } catch {
            throw StoreError(.corrupt, "stored \(what) is not valid JSON: \(error)")
        }
    }
}

extension Date {
    /// Milliseconds since 1970, the unit the databases store (as BIGINT on PostgreSQL).
    public var milliseconds: Int64 { Int64(saturating: (timeIntervalSince1970 * 1000).rounded()) }

    public init(milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

extension Int64 {
    /// A whole number of `value` (already rounded as the caller wants), clamped to Int64's range, NaN as 0.
    /// `Int64(_: Double)` traps on those; every conversion of a time that came from outside goes through here.
    public init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= 0x1p63 {
            self = .max
        } else if value < -0x1p63 {
            self = .min
        } else {
            self = Int64(value)
        }
    }
}
