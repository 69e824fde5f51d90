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

extension AppCapabilities {
    /// A list of names (`["timeSensitive"]`), as a scenario's app and the device API's app declare them.
    public init(json reader: JSONReader) throws(JSONReadError) {
        self.init()
        for element in try reader.array() {
            switch try element.string() {
            case "timeSensitive": timeSensitive = true
            case "criticalAlerts": criticalAlerts = true
            case let name: throw element.failure("unknown capability \"\(name.prefix(40))\" (expected \(Self.names.joined(separator: " or ")))")
            }
        }
    }

    /// The names it has, in ``names``' order.
    public var json: JSONValue {
        .array(zip(Self.names, [timeSensitive, criticalAlerts]).filter(\.1).map { .string($0.0) })
    }
}
