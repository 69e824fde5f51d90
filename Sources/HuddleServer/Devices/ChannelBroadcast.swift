import Foundation
import HuddleCore

/// A broadcast as the devices apply it (docs/broadcasts.md): every live activity of the app that listens on
/// the channel takes it as it would take a push to its own update token (``DeviceActivities``' rules: the
/// timestamp, the budget, the declared content state), and each device's event says what its activities did.
struct ChannelBroadcast: Sendable {
    /// Devices updated at once; each update is one transaction on its own device.
    static let devicesInFlight = 8

    let channel: String
    let app: String
    let apnsID: String
    let priority: Int
    let payload: JSONValue
    let now: Date

    /// What ``NotificationStore/updateActivities(device:app:_:)`` runs in one device's transaction.
    /// - Parameter catchingUp: for activities that have just subscribed, handed the channel's stored broadcast:
    ///   only listeners whose content is older take it, and only a broadcast applied is worth an event.
    func update(catchingUp: Bool = false) -> ActivitiesUpdate {
        { [self] activities, declarations in
            var listeners = activities.filter { $0.app == app && $0.channelID == channel && $0.isLive }
            if catchingUp {
                guard let sent = try? ActivityPush.decode(payload) else { return nil }
                listeners.removeAll { $0.timestamp >= sent.timestamp }
            }
            guard !listeners.isEmpty else { return nil }
            var device = DeviceActivities(activities: activities)
            var summaries: [String] = []
            var applied = false
            var alert: DeviceEvent.Alert?
            for listener in listeners {
                let result = device.apply(
                    payload: payload, to: .activity(id: listener.id), priority: priority, declarations: declarations, at: now,
                    newActivity: NewActivityIdentity(id: "", updateToken: ""))
                summaries.append(result.summary)
                switch result.outcome {
                case .updated, .ended: applied = true
                case .started, .ignored, .dropped, .throttled: break
                }
                alert = alert ?? result.alert.map(DeviceEvent.Alert.init)
            }
            activities = device.activities
            if catchingUp, !applied { return nil }
            let lead = catchingUp ? "the broadcast stored on channel \(channel), on subscribing" : "broadcast on channel \(channel)"
            return DeviceEvent(
                app: app, pushType: "liveactivity", messageID: apnsID, date: now, priority: priority,
                action: lead + ": " + summaries.joined(separator: "; "), payload: payload, alert: alert)
        }
    }

    /// Hands the channel's stored broadcast, if it keeps a current one, to a device's activities that have just
    /// subscribed to it. Read after the subscription committed, so that a broadcast sent meanwhile is either
    /// stored before this read or finds the subscriber in its own fan-out.
    static func catchUp(
        _ session: DeviceSession, app: String, channel id: String, environment: APNsEnvironment, store: any NotificationStore, now: Date
    ) async throws {
        guard let channel = try await store.channel(id: id), channel.app == app, channel.environment == environment,
            let message = channel.lastMessage, message.isCurrent(at: now)
        else { return }
        let broadcast = ChannelBroadcast(
            channel: id, app: app, apnsID: message.apnsID, priority: message.priority, payload: message.payload, now: now)
        _ = try await session.updateActivities(app: app, broadcast.update(catchingUp: true))
    }

    /// Applies the broadcast on every device of `environment` listening on the channel, a few devices at once.
    /// - Returns: how many devices had an activity that took it or judged it.
    func deliver(environment: APNsEnvironment, store: any NotificationStore, centers: DeviceCenters) async throws -> Int {
        let devices = try await store.devices(listeningOn: channel, app: app, environment: environment)
        return try await withThrowingTaskGroup(of: Bool.self) { group in
            var reached = 0
            var next = devices.makeIterator()
            func startNext() {
                guard let token = next.next() else { return }
                group.addTask { try await deliver(to: token, centers: centers) }
            }
            for _ in 0..<Self.devicesInFlight { startNext() }
            while let delivered = try await group.next() {
                if delivered { reached += 1 }
                startNext()
            }
            return reached
        }
    }

    /// Applies the broadcast on one device; a device or app gone meanwhile is no failure of the broadcast.
    private func deliver(to token: String, centers: DeviceCenters) async throws -> Bool {
        guard let session = try await centers.session(for: token) else { return false }
        do {
            return try await session.updateActivities(app: app, update()) != nil
        } catch DeliveryRefusal.deviceGone {
            centers.forget(token)
            return false
        } catch DeliveryRefusal.unknownApp {
            return false
        }
    }
}
