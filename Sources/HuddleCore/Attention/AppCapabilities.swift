/// What an app's entitlements let its notifications do, as its scenario or its installation declares them:
/// Time Sensitive notifications need the Time Sensitive Notifications capability
/// (`com.apple.developer.usernotifications.time-sensitive`), critical alerts an entitlement Apple grants on request
/// (`com.apple.developer.usernotifications.critical-alerts`). Without it, the level breaks through nothing: the
/// notification is treated as an active one (chosen: docs/summary-and-focus.md).
public struct AppCapabilities: Sendable, Hashable {
    public var timeSensitive: Bool
    public var criticalAlerts: Bool

    public init(timeSensitive: Bool = false, criticalAlerts: Bool = false) {
        self.timeSensitive = timeSensitive
        self.criticalAlerts = criticalAlerts
    }

    /// The names a scenario's `capabilities` list takes.
    public static let names = ["timeSensitive", "criticalAlerts"]
}
