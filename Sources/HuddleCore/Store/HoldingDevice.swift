public import Foundation

/// A device holding notifications for its scheduled summary, as a summary service finds it: the arrival of its oldest
/// held notification, which the earliest summary holds, and its settings, unless the service said it knows them as of
/// the device's last change (``NotificationStore/holdingDevices(knowingSettingsAsOf:)``).
public struct HoldingDevice: Sendable, Hashable {
    public var token: String
    public var oldestHeld: Date
    /// The number of the device's last change: the settings are those stored with it (every change of settings is
    /// a change of the device).
    public var lastChange: UInt64
    /// Its settings; `nil` when the service knew them as of ``lastChange`` already.
    public var settings: DeviceSettings?

    public init(token: String, oldestHeld: Date, lastChange: UInt64, settings: DeviceSettings?) {
        self.token = token
        self.oldestHeld = oldestHeld
        self.lastChange = lastChange
        self.settings = settings
    }

    /// When its next summary comes under `settings`: the first summary time at or after its oldest held notification.
    public func nextSummary(under settings: DeviceSettings) -> Date {
        settings.summary.nextDelivery(atOrAfter: oldestHeld, in: settings.clock)
    }
}

