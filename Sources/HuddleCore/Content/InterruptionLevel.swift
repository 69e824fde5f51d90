/// How urgently a notification asks for attention (`UNNotificationInterruptionLevel`).
public enum InterruptionLevel: String, Sendable, Hashable, CaseIterable {
    case passive, active, timeSensitive, critical

    /// The APNs spelling (`time-sensitive`), as payloads carry it.
    public var apnsName: String {
        self == .timeSensitive ? "time-sensitive" : rawValue
    }

    public init?(apnsName: String) {
        guard let level = Self.allCases.first(where: { $0.apnsName == apnsName }) else { return nil }
        self = level
    }
}
