public import Foundation

/// Who hears a message sent to many: Live Activities and the broadcast channels they listen on, and FCM topics and their subscribers. One of the protocols ``NotificationStore`` joins.
public protocol BroadcastStore: Sendable {
    /// Changes a device's Live Activities in one transaction, decided against them as stored then (under the
    /// device's lock where servers share the store): `update` gets them with the app's declared types (read
    /// without the app's strings, which can be large), changes them, and gives the event that says what the
    /// device did. When the activities changed, they are one change (`.activities`), and the event, if any, the
    /// next.
    /// - Returns: the changes, in number order.
    /// - Throws: ``StoreError`` `.notFound` for an unknown device or app; what `update` throws, as it threw it
    ///   (nothing is stored then).
    func updateActivities(device token: String, app topic: String, _ update: ActivitiesUpdate) async throws -> [DeviceChange]
    /// Creates a channel, refusing it (`.full`) when its app already has `maximumPerApp` in its environment,
    /// counted in the transaction that inserts it.
    func createChannel(_ channel: BroadcastChannel, maximumPerApp: Int) async throws
    func channel(id: String) async throws -> BroadcastChannel?
    /// The identifiers of an app's channels in one environment, oldest first.
    func channels(app: String, environment: APNsEnvironment) async throws -> [String]
    func deleteChannel(id: String) async throws -> Bool
    /// Keeps `message` as the channel's latest broadcast.
    /// - Returns: false when there is no such channel.
    func storeBroadcast(_ message: StoredBroadcast, channel id: String) async throws -> Bool
    /// The devices of `environment` holding an activity of `app` that listens on `channel` (the fan-out of a
    /// broadcast; each device's update then checks its activities again in its own transaction).
    func devices(listeningOn channel: String, app: String, environment: APNsEnvironment) async throws -> [String]
    /// Subscribes a registration token to a topic of a project, counting the token's topics in the same
    /// transaction.
    /// - Returns: false when it was subscribed already.
    /// - Throws: ``StoreError`` `.notFound` for a token no app has, `.conflict` for an app registered with another
    ///   project (``UpdateRefusal/checkProject(_:subscribingUnder:)``), `.full` when it has `maximumTopics`.
    func subscribe(registrationToken: String, project: String, topic: String, at date: Date, maximumTopics: Int) async throws -> Bool
    /// - Returns: false when it was not subscribed.
    func unsubscribe(registrationToken: String, project: String, topic: String) async throws -> Bool
    /// The registration tokens subscribed to any of `topics` in `project`, each with those of `topics` it is
    /// subscribed to (a condition is decided on them), in token order.
    func subscribers(project: String, toAnyOf topics: [String]) async throws -> [(registrationToken: String, topics: Set<String>)]
}
