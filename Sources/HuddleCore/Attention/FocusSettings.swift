public import Foundation

/// A Focus (Settings › Focus, iOS 15): while it is on, notifications of apps it does not allow are delivered
/// quietly, to the list, without lighting the screen or sounding; allowed apps, Time Sensitive notifications
/// (when the Focus lets them) and critical alerts break through.
public struct FocusSettings: Sendable, Hashable {
    /// Whether the Focus is on: never, always, or between two times of day on the device's clock.
    public enum Mode: Sendable, Hashable {
        case off
        case on
        /// On from `from` until `to`, overnight when `to` is earlier; all day when they are equal.
        case scheduled(from: TimeOfDay, to: TimeOfDay)
    }

    /// The longest name kept (it is shown on the page and in device events).
    public static let maximumNameLength = 64
    /// The most apps one Focus allows.
    public static let maximumAllowedApps = 256
    /// The longest app identifier a Focus names, in bytes: a bundle identifier's or an Android package name's
    /// longest. With the count above, a device's settings are a few tens of kilobytes at most.
    public static let maximumAppIdentifierBytes = 255

    /// "Do Not Disturb", "Work", "Sleep"…
    public private(set) var name: String
    public var mode: Mode
    /// The apps whose notifications break through.
    public private(set) var allowedApps: Set<String>
    /// Focus › Apps › Time Sensitive Notifications: on by default (chosen: docs/summary-and-focus.md).
    public var allowsTimeSensitive: Bool

    /// - Throws: ``SettingsError`` for an empty or too long name, or too many allowed apps.
    public init(name: String = "Do Not Disturb", mode: Mode = .off, allowedApps: Set<String> = [], allowsTimeSensitive: Bool = true) throws(SettingsError) {
        guard !name.isEmpty, name.unicodeScalars.count <= Self.maximumNameLength else {
            throw SettingsError("focus.name: give a name of 1 to \(Self.maximumNameLength) characters")
        }
        guard allowedApps.count <= Self.maximumAllowedApps else {
            throw SettingsError("focus.allowedApps: \(allowedApps.count) apps, more than the \(Self.maximumAllowedApps) a Focus may allow")
        }
        // Sorted only to name the same app every time, once one is known to be wrong.
        if allowedApps.contains(where: { !Self.isAppIdentifier($0) }), let app = allowedApps.sorted().first(where: { !Self.isAppIdentifier($0) }) {
            throw SettingsError(
                "focus.allowedApps: \"\(String(String.UnicodeScalarView(app.unicodeScalars.prefix(64))))\" is not an app identifier "
                    + "(1 to \(Self.maximumAppIdentifierBytes) letters, digits, '.', '-' or '_')")
        }
        self.name = name
        self.mode = mode
        self.allowedApps = allowedApps
        self.allowsTimeSensitive = allowsTimeSensitive
    }

    /// Whether `app` is shaped as a bundle identifier or an Android package name is: what a Focus can allow.
    public static func isAppIdentifier(_ app: String) -> Bool {
        let bytes = app.utf8
        return !bytes.isEmpty && bytes.count <= maximumAppIdentifierBytes
            && bytes.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    true
                default:
                    false
                }
            }
    }

    /// Whether the Focus is on at `date`, on the clock of `timeZone`.
    public func isActive(at date: Date, in timeZone: TimeZone) -> Bool {
        switch mode {
        case .off: return false
        case .on: return true
        case .scheduled(let from, let to):
            guard from != to else { return true }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            let parts = calendar.dateComponents([.hour, .minute], from: date)
            let now = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
            return from < to ? (from.minutes <= now && now < to.minutes) : (now >= from.minutes || now < to.minutes)
        }
    }
}
