public import Foundation

extension InMemoryNotificationStore {
    public func updateActivities(device token: String, app topic: String, _ update: ActivitiesUpdate) throws -> [DeviceChange] {
        guard let device = devices[token] else { throw StoreError(.notFound, "unknown device \(token)") }
        guard let app = device.apps[topic] else { throw StoreError(.notFound, "device \(token) has no app \(topic)") }
        var activities = device.activities
        let event = try update(&activities, app.activities)
        var changes: [DeviceChange] = []
        if activities != device.activities {
            devices[token]?.activities = activities
            changes.append(DeviceChange(number: record(token, .activities, topic: topic), kind: .activities(activities)))
        }
        if let event { changes.append(try recordEvent(event, device: token)) }
        return changes
    }

    public func createChannel(_ channel: BroadcastChannel, maximumPerApp: Int) throws {
        let count = broadcastChannels.values.count { $0.app == channel.app && $0.environment == channel.environment }
        guard count < maximumPerApp else { throw UpdateRefusal.tooManyChannels(count, app: channel.app) }
        broadcastChannels[channel.id] = channel
    }

    public func channel(id: String) -> BroadcastChannel? {
        broadcastChannels[id]
    }

    public func channels(app: String, environment: APNsEnvironment) -> [String] {
        broadcastChannels.values.filter { $0.app == app && $0.environment == environment }
            .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }.map(\.id)
    }

    public func deleteChannel(id: String) -> Bool {
        broadcastChannels.removeValue(forKey: id) != nil
    }

    public func storeBroadcast(_ message: StoredBroadcast, channel id: String) -> Bool {
        guard broadcastChannels[id] != nil else { return false }
        broadcastChannels[id]?.lastMessage = message
        return true
    }

    /// The databases' rule (their `activity_channels`): the channels ``LiveActivity/channels(of:)`` keeps.
    public func devices(listeningOn channel: String, app: String, environment: APNsEnvironment) -> [String] {
        let listening = LiveActivity.ChannelListening(channel: channel, app: app)
        return devices.values.filter { device in
            device.record.environment == environment && LiveActivity.channels(of: device.activities).contains(listening)
        }.map(\.record.token).sorted()
    }

    public func subscribe(registrationToken: String, project: String, topic: String, at date: Date, maximumTopics: Int) throws -> Bool {
        guard let (device, app) = registrations[registrationToken], let installation = devices[device]?.apps[app]?.firebase else {
            throw StoreError(.notFound, "no app has registration token \(registrationToken.prefix(40))")
        }
        try UpdateRefusal.checkProject(installation, subscribingUnder: project)
        let topics = topicsOfToken[registrationToken, default: [:]]
        guard topics[project]?.contains(topic) != true else { return false }
        let count = topics.values.reduce(0) { $0 + $1.count }
        guard count < maximumTopics else { throw UpdateRefusal.tooManyTopics(count) }
        topicsOfToken[registrationToken, default: [:]][project, default: []].insert(topic)
        return true
    }

    public func unsubscribe(registrationToken: String, project: String, topic: String) -> Bool {
        topicsOfToken[registrationToken]?[project]?.remove(topic) != nil
    }

    public func subscribers(project: String, toAnyOf topics: [String]) -> [(registrationToken: String, topics: Set<String>)] {
        let wanted = Set(topics)
        return topicsOfToken.compactMap { token, projects -> (registrationToken: String, topics: Set<String>)? in
            guard let subscribed = projects[project]?.intersection(wanted), !subscribed.isEmpty else { return nil }
            return (token, subscribed)
        }.sorted { $0.registrationToken < $1.registrationToken }
    }
}
