import Foundation

/// A device's Live Activities as the stores keep them, and the broadcast channels a store indexes beside them.
extension LiveActivity {
    /// A broadcast channel of an app that one or more of a device's activities listen on.
    public struct ChannelListening: Hashable, Sendable {
        public var channel: String
        public var app: String
    }

    /// The channels `activities` listen on, each once: what a store keeps beside them, so that a broadcast finds its
    /// devices by its channel. An identifier no channel can have (a push-to-start's `input-push-channel` is a stranger's
    /// text) is left out: no broadcast could reach it, and a store's index takes only a bounded key.
    public static func channels(of activities: [LiveActivity]) -> [ChannelListening] {
        var seen = Set<ChannelListening>()
        return activities.compactMap { activity in
            guard let channel = activity.channelID, BroadcastChannel.isWellFormedID(channel) else { return nil }
            let listening = ChannelListening(channel: channel, app: activity.app)
            return seen.insert(listening).inserted ? listening : nil
        }
    }

    /// A device's activities as the stores keep them: one JSON array.
    public static func storedText(_ activities: [LiveActivity]) -> String {
        JSONValue.array(activities.map(\.json)).jsonText()
    }

    /// Reads a device's stored activities.
    /// - Throws: ``StoreError`` `.corrupt` when they cannot be read.
    public static func stored(_ text: String?, device token: String) throws(StoreError) -> [LiveActivity] {
        guard let text else { return [] }
        do {
            return try JSONReader(try JSONParser.parse(text)).array().map { element throws(JSONReadError) in try LiveActivity(json: element) }
        } catch {
            throw StoreError(.corrupt, "stored Live Activities of device \(token) cannot be read: \(error)")
        }
    }
}
